package hostgitlate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32WorktreeLinkWhileRunning: git worktree prune, and git
// gc, which runs it, remove an entry of .git/worktrees with no gitdir
// file recursively, opening it through a symbolic link; the exit moves
// such a link aside, but the host's git runs while a session does too (a
// commit in another terminal, and the gc it starts). A session links
// .git/worktrees/zz to a folder of the user's it cannot see, and the
// host's git gc runs before the session ends. Host-side proof: the
// user's files are byte-identical.
func TestReplayReview32WorktreeLinkWhileRunning(t *testing.T) {
	h := harness.NewHost(t)
	docs := filepath.Join(h.Home, "Documents")
	h.Write(filepath.Join(docs, "thesis.tex"), "chapter one\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	_, out, exited := harness.StartSession(t, h, proj, `mkdir -p .git/worktrees; ln -s `+docs+` .git/worktrees/zz; touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	gc, _ := h.Command(proj, nil, "git", "gc", "-q").CombinedOutput()
	prune, _ := h.Command(proj, nil, "git", "worktree", "prune").CombinedOutput()
	harness.TouchDone(t, proj)
	<-exited
	if b, err := os.ReadFile(filepath.Join(docs, "thesis.tex")); err != nil || string(b) != "chapter one\n" {
		t.Errorf("the host's git gc, while a session ran, removed the user's file through the link it made in .git/worktrees: %q %v\n%s%s%s", b, err, gc, prune, out)
	}
}
