package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26UndoKilled: --undo moves aside what stands at each
// path it restores (the session's file, or the user's edit made since)
// and each file the session made, and names them, with the mv that puts
// each back, once all is done. A kill -9 before that (a closed terminal,
// the OOM killer) moved them without a word: the user's edit made after
// the session was in ~/.claudebox/moved-aside, which no command named.
// Host-side proof: --undo killed once it moved them, the next claudebox
// command names where each went, and the user's edit is there.
func TestReplayReview26UndoKilled(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "notes.txt"), "the user's notes\n")
	h.Chown()
	afterSnapshot(h, proj, "echo the session > notes.txt; echo made > new.txt")
	const edit = "the user's edit after the session\n"
	h.Write(filepath.Join(proj, "notes.txt"), edit)
	h.Chown()
	var stderr harness.Output
	c := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=undo applied"}, "claudebox", "--undo", "-y")
	c.Stderr = &stderr
	harness.Must(t, c.Start())
	defer c.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "--undo to hold", func() bool { return strings.Contains(stderr.String(), "holding after undo applied") || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("--undo ended: %v\n%s", <-exited, stderr.String())
	}
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	out, err := h.Bounded(proj, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	var named []string
	for _, word := range strings.Fields(out) {
		if b, err := os.ReadFile(word); err == nil && strings.Contains(word, "moved-aside") {
			named = append(named, string(b))
		}
	}
	for _, want := range []string{edit, "made\n"} {
		found := false
		for _, n := range named {
			found = found || n == want
		}
		if !found {
			t.Errorf("the next command names no file aside holding %q:\n%s", want, out)
		}
	}
}
