package hostcmdslate

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview26IndexLockInvalidName: the exit audit records git's
// lock on each index it rewrites, for the next command to remove after a
// kill. The record held the git directory as a JSON string, which turns
// bytes that are not UTF-8 into U+FFFD: in a repository the session made
// under such a name (its index hiding a change, which the audit shows
// again), a supervisor killed while it held the lock left index.lock
// there for good, and every host git writing that index failed. Host-side
// proof: killed there, the next claudebox command removes the lock.
func TestReplayReview26IndexLockInvalidName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=index locked"}, "claudebox", "--shell", "-c",
		`set -e; mkdir $'n\xff'; cd $'n\xff'; git init -q; git config user.email a@b; git config user.name a; echo a > f; git add f; git commit -qm x; git update-index --assume-unchanged f; echo changed >> f`)
	s.Stderr = &stderr
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the supervisor to hold in the index's rewrite", func() bool {
		return strings.Contains(stderr.String(), "holding after index locked") || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended before the index's rewrite: %v\n%s", <-exited, stderr.String())
	}
	lock := filepath.Join(proj, "n\xff", ".git", "index.lock")
	if !paths.Exists(lock) {
		t.Fatal("the supervisor holds in the index's rewrite, but no index.lock stands")
	}
	harness.Must(t, s.Process.Signal(syscall.SIGKILL))
	<-exited
	out, err := h.Bounded(proj, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	if paths.Exists(lock) {
		t.Errorf("the killed supervisor's index.lock outlived the next command:\n%s", out)
	}
}
