package hostgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayAuditWorktrees: a repository's linked worktree is the same
// project as its main checkout (one instance, one lock, one exit audit,
// run by the session that leaves last), but each session's sandbox binds
// its own checkout. One session plants Claude Code hooks three levels
// down (deeper than any guard) and an .envrc in its checkout; a session
// in the other checkout starts while it runs and leaves after it. The
// audit must look through the checkout the first one wrote, not only the
// last one's. Host-side proof: neither the hooks nor the .envrc stand
// where the host's claude and direnv read them.
func TestReplayAuditWorktrees(t *testing.T) {
	for _, first := range []string{"worktree", "main"} {
		t.Run(first+" first", func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			wt := filepath.Join(h.Home, "wt")
			h.GitRepo(proj)
			h.Run(proj, nil, "git", "worktree", "add", "-q", wt)
			planter, other := wt, proj
			if first == "main" {
				planter, other = proj, wt
			}
			marker := filepath.Join(h.Base, "MARKER")
			_, aOut, aExited := harness.StartSession(t, h, planter, `
				mkdir -p a/b/c/.claude
				echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}' > a/b/c/.claude/settings.json
				echo 'touch `+marker+`' > a/.envrc
				touch started
				while ! test -e done; do sleep 0.05; done
			`)
			_, bOut, bExited := harness.StartSession(t, h, other, `touch started; while ! test -e done; do sleep 0.05; done`)
			if len(aExited) > 0 || len(bExited) > 0 {
				t.Fatalf("a session ended early:\n%s\n%s", aOut, bOut)
			}
			harness.TouchDone(t, planter)
			if err := <-aExited; err != nil {
				t.Fatalf("the planting session: %v\n%s", err, aOut)
			}
			harness.TouchDone(t, other)
			if err := <-bExited; err != nil {
				t.Fatalf("the other session: %v\n%s", err, bOut)
			}
			for _, p := range []string{filepath.Join(planter, "a", "b", "c", ".claude", "settings.json"), filepath.Join(planter, "a", ".envrc")} {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), marker) {
					t.Errorf("%s passed the audit:\n%s", p, bOut)
				}
			}
			if !strings.Contains(bOut.String(), "moved aside") {
				t.Errorf("the last session's audit moved nothing aside:\n%s", bOut)
			}
		})
	}
}
