package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27rClaudeDirFloodBounded: the session's end names what
// the session made in its own ~/.claude. The attack, from inside: a
// thousand files there, whose names the end printed one a line, pushing
// the rest of what it says out of the terminal's sight. Proof: the end
// names 20 at most and counts the rest.
func TestReplayReview27rClaudeDirFloodBounded(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Chown()
	out := h.InsideStderr(proj, `for i in $(seq 1000); do : > ~/.claude/junk$i; done; echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the files could not be made:\n%s", out)
	}
	if n := strings.Count(out, "made in the sandbox's own ~/.claude"); n == 0 || n > 20 || !strings.Contains(out, "and 980 more") {
		t.Errorf("the end named %d of the thousand files (want 20, and the rest counted):\n%.3000s", n, out)
	}
}
