package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26UnsaidInvalidName: the record of what the exit audit
// is about to move aside was JSON, whose strings turn a name's bytes that
// are not UTF-8 into U+FFFD: a supervisor killed between the move and its
// word left a record naming no file that exists, and the next command
// named nothing of a .envrc moved out of a directory whose name is not
// UTF-8. Host-side proof: killed there, the next claudebox command names
// the .envrc with the mv that puts it back, and that mv does.
func TestReplayReview26UnsaidInvalidName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	var stderr harness.Output
	c := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=moved aside"}, "claudebox", "--shell", "-c", `mkdir $'sub\xff'; echo 'export X=1' > $'sub\xff/.envrc'`)
	c.Stderr = &stderr
	harness.Must(t, c.Start())
	defer c.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	harness.WaitFor(t, "the supervisor to hold", func() bool { return strings.Contains(stderr.String(), "holding after moved aside") || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended: %v\n%s", <-exited, stderr.String())
	}
	harness.Must(t, c.Process.Signal(syscall.SIGKILL))
	<-exited
	envrc := filepath.Join(proj, "sub\xff", ".envrc")
	if _, err := os.Lstat(envrc); err == nil {
		t.Fatal("the .envrc was not moved aside")
	}
	out, err := h.Bounded(proj, "--list")
	if err != nil {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	putBack(t, h, proj, out)
	if b, err := os.ReadFile(envrc); err != nil || string(b) != "export X=1\n" {
		t.Errorf("the next command's mv does not put the .envrc back (%q, %v):\n%s", b, err, out)
	}
}

// putBack runs, as the user, each command out gives to put back what was
// moved aside.
func putBack(t *testing.T, h *harness.Host, proj, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "to put it back: "); ok {
			if o, err := h.Command(proj, nil, "bash", "-c", cmd).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", cmd, err, o)
			}
		}
	}
}
