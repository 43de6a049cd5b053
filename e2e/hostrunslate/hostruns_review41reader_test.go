package hostrunslate

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview41PyprojectsHoldExit: the exit parses each
// pyproject.toml the session made outside git, up to 1 MiB, to tell one
// that configures tools from one that describes its package; a
// TOML parser takes seconds over a MiB of a table's dotted name
// ([a.a.a….a]), and nothing bounded how many the exit parsed: a
// session's two dozen such files added 39 s to its end (load 25; a
// control of the same files under another name, 1.6 s), a few hundred
// would add minutes. The attack,
// from inside: write them, untracked, in folders of their own. Proof:
// each is moved aside unread, as one the exit cannot judge is, and so
// the exit reads none whole (its time is logged, not asserted).
func TestReplayReview41PyprojectsHoldExit(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const packages = 24
	start := time.Now()
	out := h.Plant(proj, "pyproject.toml files", fmt.Sprintf(`python3 -c "
import os
text = '[' + 'a.' * 520000 + 'a]\n'
for i in range(%d):
    os.makedirs('pkgs/p%%d' %% i)
    open('pkgs/p%%d/pyproject.toml' %% i, 'w').write(text)
"`, packages))
	t.Logf("the session and its exit took %v:\n%s", time.Since(start), out)
	for i := range packages {
		if _, err := os.Lstat(filepath.Join(proj, "pkgs", fmt.Sprintf("p%d", i), "pyproject.toml")); err == nil {
			t.Errorf("pkgs/p%d/pyproject.toml, 1 MiB of a table's dotted name, was parsed and left in place", i)
		}
	}
}
