package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33PaddedGitDirsLeaveNextLaunch: each entry not git's own
// at the top of a git directory, in its info and in a linked worktree's
// directory is shown empty at the launch, a mount each; past 1,024 in one
// folder the launch refuses, as a session that padded it would push a
// file of the user's past those shown empty. A session that made 1,100
// files in .git/info, 1,100 folders at the top of .git or 1,100 files in
// .git/worktrees/<name> had every later launch refuse until the user
// emptied it by hand. Proof: after that session's exit the next launch
// starts, and what the user kept there (a file in .git/info, one at the
// top of .git, the linked worktree) is in place.
func TestReplayReview33PaddedGitDirsLeaveNextLaunch(t *testing.T) {
	for _, c := range []struct{ name, pad string }{
		{"info", `for i in $(seq 1100); do : > .git/info/pad$i || exit 1; done`},
		{"top", `for i in $(seq 1100); do mkdir .git/pad$i || exit 1; done`},
		{"worktree", `for i in $(seq 1100); do : > .git/worktrees/wt/pad$i || exit 1; done`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Run(proj, nil, "git", "worktree", "add", "-q", filepath.Join(h.Home, "wt"))
			h.Write(filepath.Join(proj, ".git", "info", "mine"), "the user's\n")
			h.Write(filepath.Join(proj, ".git", "mine.txt"), "the user's\n")
			h.Chown()
			h.Plant(proj, "1,100 entries in "+c.name, c.pad)
			out, err := h.Bounded(proj, "--shell", "-c", "echo STARTED")
			if err != nil || !strings.Contains(out, "STARTED") {
				t.Fatalf("the launch after a session that padded %s refused: %v\n%s", c.name, err, out)
			}
			for _, p := range []string{".git/info/mine", ".git/mine.txt", ".git/worktrees/wt/gitdir"} {
				if _, err := os.Stat(filepath.Join(proj, p)); err != nil {
					t.Errorf("the user's %s: %v", p, err)
				}
			}
			if out := h.Run(proj, nil, "git", "worktree", "list"); !strings.Contains(out, "wt") {
				t.Errorf("the linked worktree is gone from git worktree list:\n%s", out)
			}
		})
	}
}
