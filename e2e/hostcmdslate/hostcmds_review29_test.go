package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29EditorSaveOverStandIn: the end removes each stand-in
// the launch made for a guarded file the project lacks (.envrc), once it
// judged it one; between that judgement and the removal the host's editor
// saved the user's own .envrc there by a rename (a new file renamed over
// the name), and the removal took the user's file. Held (with
// CLAUDEBOX_TRACE_HOLD) after the judgement of .envrc's stand-in, the
// editor saves; host-side proof: the user's .envrc is in place, with what
// they saved, and nothing is left beside it under claudebox's name.
func TestReplayReview29EditorSaveOverStandIn(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	envrc := filepath.Join(proj, ".envrc")
	const hold = "removal judged .envrc"
	var stderr harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + hold}, "claudebox", "--shell", "-c", "echo session > README")
	s.Stderr = &stderr
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the stand-in's removal to hold", func() bool { return strings.Contains(stderr.String(), "holding after "+hold) || len(exited) > 0 })
	if len(exited) > 0 {
		t.Fatalf("the session ended before the removal of .envrc's stand-in held: %v\n%s", <-exited, stderr.String())
	}
	if fi, err := os.Lstat(envrc); err != nil || fi.Size() != 0 {
		t.Fatalf(".envrc at the hold is not the empty stand-in: %v %v", fi, err)
	}
	// The editor saves as most do: a new file renamed over the old.
	h.Write(envrc+".swp", "export MINE=1\n")
	harness.Must(t, os.Rename(envrc+".swp", envrc))
	s.Process.Signal(syscall.SIGUSR1)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(envrc); err != nil || string(b) != "export MINE=1\n" {
		t.Errorf("the user's .envrc saved over the stand-in: %q, %v\n%s", b, err, stderr.String())
	}
	left, _ := filepath.Glob(filepath.Join(proj, ".claudebox-*"))
	if len(left) > 0 {
		t.Errorf("left in the project: %q", left)
	}
}
