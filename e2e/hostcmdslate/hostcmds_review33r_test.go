package hostcmdslate

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview33rKeeperAfterKill: the keeper a launch makes in
// .git/worktrees (.claudebox/locked, which git's prune leaves) was
// removed only by the last session's cleanup. After a kill -9 of
// claudebox, the next claudebox command (--gc here, which launches
// nothing) removed the killed session's stand-ins and said so, but left
// the keeper in the user's repository, a record of a session long gone,
// until the project's next launch. It goes now with the stand-ins, and
// the command's line counts it; git worktree list shows the checkout
// alone.
func TestReplayReview33rKeeperAfterKill(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	keeper := filepath.Join(proj, ".git", "worktrees", ".claudebox")
	c, _, exited := harness.StartSession(t, h, proj, "touch started; sleep 600")
	if !paths.Exists(filepath.Join(keeper, "locked")) {
		t.Fatal("no keeper in .git/worktrees while the session runs")
	}
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	// The sandbox ends after its supervisor: until it has, the project's
	// sessions run, and nothing is removed.
	var out []byte
	harness.WaitFor(t, "the next claudebox command to clean up after the killed session", func() bool {
		out, _ = h.Command(proj, nil, "claudebox", "--gc").CombinedOutput()
		return strings.Contains(string(out), "left by a session that was killed")
	})
	if paths.Exists(keeper) {
		t.Errorf("the keeper of .git/worktrees outlived the killed session and the next claudebox command:\n%s", out)
	}
	if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("git worktree list after the killed session:\n%s", list)
	}
}
