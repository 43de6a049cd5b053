package faults

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview44FailedLaunchNoSession: a session wrecks a file; the
// user's next launch fails after its start was recorded (bwrap cannot make
// a path the plan mounts), and the user then asks what the last session
// did and undoes it. The failed launch had taken its own snapshot and
// written its own record: --changes said "no file changed" and --undo -y
// "nothing to undo", the wreck left in place. A launch whose sandbox never
// began is no session: the last session stays the one that ran.
func TestReplayReview44FailedLaunchNoSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	wreckedSession(t, h, proj)
	failing := filepath.Join(h.Base, "failing")
	h.FailingBwrap(failing, true)
	var failed strings.Builder
	c := h.Command(proj, []string{"PATH=" + failing + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}, "claudebox", "--shell", "-c", "true")
	c.Stderr = &failed
	if err := c.Run(); err == nil || !strings.Contains(failed.String(), "bwrap could not make the sandbox") {
		t.Fatalf("the launch with a failing bwrap: %v\n%s", err, failed.String())
	}
	if changes := h.Run(proj, nil, "claudebox", "--changes"); !strings.Contains(changes, "README") {
		t.Errorf("--changes after a failed launch does not name the last session's README:\n%s", changes)
	}
	undone := h.Run(proj, nil, "claudebox", "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != "hello\n" {
		t.Errorf("--undo -y after a failed launch left README %q:\n%s", b, undone)
	}
}

// TestReplayReview44StoppedAtStart: the user stops a launch as it starts
// (Ctrl-C, kill, the terminal closed), after a session that wrecked a
// file. Held at a phase before its sandbox starts: its proxy up (its undo
// snapshot being taken), or its stand-ins made in the project. The
// signal's default ended claudebox at once: the stand-ins stayed in the
// project as empty read-only directories (.bashrc, .vscode, .envrc …)
// until the next claudebox command, and the launch's undo snapshot stayed
// pending, so that --undo -y refused to undo the session that ran. The
// launch now stops, with the signal's status, its command never run, no
// stand-in left, and --undo -y undoes the last session.
func TestReplayReview44StoppedAtStart(t *testing.T) {
	for _, tc := range []struct {
		hold string
		sig  syscall.Signal
	}{
		{"proxy", syscall.SIGTERM},
		{"instance and placeholders", syscall.SIGINT},
		{"instance and placeholders", syscall.SIGHUP},
	} {
		t.Run(tc.hold+" "+tc.sig.String(), func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			wreckedSession(t, h, proj)
			var stderr harness.Output
			s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=" + tc.hold}, "claudebox", "--shell", "-c", "touch ran")
			s.Stderr = &stderr
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			defer s.Process.Kill()
			exited := make(chan error, 1)
			go func() { exited <- s.Wait() }()
			harness.WaitFor(t, "the supervisor to hold", func() bool { return strings.Contains(stderr.String(), "holding after "+tc.hold) || len(exited) > 0 })
			s.Process.Signal(tc.sig)
			s.Process.Signal(syscall.SIGUSR1)
			var exit *exec.ExitError
			if err := <-exited; !errors.As(err, &exit) || exit.ExitCode() != 128+int(tc.sig) {
				t.Errorf("the launch stopped by %v ended with %v, not status %d:\n%s", tc.sig, err, 128+int(tc.sig), stderr.String())
			}
			for _, n := range guard.WorkTreeNames() {
				if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
					t.Errorf("the stand-in %s outlived the launch", n)
				}
			}
			if paths.Exists(filepath.Join(proj, "ran")) {
				t.Error("the stopped launch ran its command")
			}
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(l, "claudebox: ") && !strings.HasPrefix(l, "claudebox: trace: ") {
					t.Errorf("the stopped launch, whose sandbox never began, said %q:\n%s", l, stderr.String())
				}
			}
			undone, err := h.Command(proj, nil, "claudebox", "--undo", "-y").CombinedOutput()
			if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != "hello\n" {
				t.Errorf("--undo -y after the stopped launch left README %q: %v\n%s", b, err, undone)
			}
		})
	}
}

// wreckedSession makes proj a repository and runs a session in it that
// overwrites its README once the session's undo snapshot is written.
func wreckedSession(t *testing.T, h *harness.Host, proj string) {
	t.Helper()
	h.GitRepo(proj)
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", "until [ -e go ]; do sleep 0.1; done; rm go; echo wrecked > README")
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	h.WaitSnapshot()
	h.Write(filepath.Join(proj, "go"), "")
	if err := session.Wait(); err != nil {
		t.Fatalf("the session: %v", err)
	}
}
