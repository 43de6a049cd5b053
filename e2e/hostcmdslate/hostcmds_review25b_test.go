package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25bBesideNamesPlanted: what the exit audit cannot copy
// aside (the sandbox filled ~/.claudebox's disk) is renamed to its name
// with the time added, to the millisecond, replacing nothing. The session
// made every such name of the next half minute first (31,000 empty
// files), and its .envrc stayed where direnv obeys it. Host-side proof:
// the .envrc is no longer at its name.
func TestReplayReview25bBesideNamesPlanted(t *testing.T) {
	h, proj, _ := harness.SmallStateDisk(t)
	out, err := h.Bounded(proj, "--shell", "-c", `head -c 64M /dev/zero > ~/.claude/projects/fill; mkdir sub; { echo 'touch "$HOME/PLANTED"'; head -c 100000 /dev/zero | tr '\0' '#'; echo; } > sub/.envrc; cd sub && bash -c 'now=$(date -u +%s); for s in $(seq -1 30); do p=$(date -u -d @$((now+s)) +%Y%m%dT%H%M%S); touch .envrc.claudebox-aside-$p.{000..999}Z; done' && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the names could not be planted: %v\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(proj, "sub", ".envrc")); err == nil {
		t.Errorf("the session's .envrc stays in the project:\n%.3000s", out)
	}
}
