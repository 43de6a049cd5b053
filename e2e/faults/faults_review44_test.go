package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
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
	h.GitRepo(proj)
	// The wreck comes once the session's snapshot is written.
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", "until [ -e go ]; do sleep 0.1; done; rm go; echo wrecked > README")
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	h.WaitSnapshot()
	h.Write(filepath.Join(proj, "go"), "")
	if err := session.Wait(); err != nil {
		t.Fatalf("the session: %v", err)
	}
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
