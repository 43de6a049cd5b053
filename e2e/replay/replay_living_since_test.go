package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayLivingRecreatedProject: a launch ends without its cleanup
// after the project's start was recorded (its supervisor killed, or a
// launch that failed while it filled the instance), then the user deletes
// the project and makes it anew at the same path, which has the same
// instance, or edits a protected file in it. The next session took the
// old record as its start: every guarded file of the new project was
// "made during the session", so it said, as it began, that the host had
// replaced .envrc, .claude/settings.json and .git/config while the session
// ran, though no session had run since. The sandbox cannot forge or plant
// the record: claudebox's state is not in its view.
// Host-side proof: the next session says nothing is replaced or moved
// aside, and the user's files stay byte-identical.
func TestReplayLivingRecreatedProject(t *testing.T) {
	for _, end := range []string{"killed", "failed", "failed then edited"} {
		t.Run(end, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			make := func() {
				h.GitRepo(proj)
				h.Write(filepath.Join(proj, ".envrc"), "export A=1\n")
				h.Write(filepath.Join(proj, ".claude", "settings.json"), "{}\n")
			}
			make()
			inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
			switch end {
			case "killed":
				c := h.Command(proj, nil, "claudebox", "--shell", "-c", "touch started; touch ~/.claudebox/live/planted 2>/dev/null; exec sleep 60.0419")
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) })
				c.Process.Signal(syscall.SIGKILL)
				c.Wait()
				harness.WaitFor(t, "the sandbox to die with its supervisor", func() bool { return !instance.InUse(inst) && !harness.Running("sleep\x0060.0419\x00") })
			case "failed", "failed then edited":
				// A project where the stand-ins of its missing protected
				// paths cannot be made ends the launch after its start
				// was recorded.
				os.Chmod(proj, 0o555)
				c := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
				out, err := c.CombinedOutput()
				if err == nil {
					t.Fatalf("the launch in a read-only project started:\n%s", out)
				}
				t.Logf("failed launch: %s", out)
			}
			if end == "failed then edited" {
				os.Chmod(proj, 0o755)
				h.Write(filepath.Join(proj, ".envrc"), "export A=2\n")
			} else {
				if err := os.RemoveAll(proj); err != nil {
					t.Fatal(err)
				}
				make()
			}
			before := map[string][]byte{}
			for _, f := range []string{".envrc", ".claude/settings.json", ".git/config"} {
				before[f], _ = os.ReadFile(filepath.Join(proj, f))
			}
			var stderr bytes.Buffer
			c := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
			c.Stderr = &stderr
			if err := c.Run(); err != nil {
				t.Fatalf("the next session: %v\n%s", err, stderr.String())
			}
			if s := stderr.String(); strings.Contains(s, "replaced") || strings.Contains(s, "moved aside") {
				t.Errorf("the next session blamed the host:\n%s", s)
			}
			if paths.Exists(filepath.Join(h.Home, ".claudebox", "live", "planted")) {
				t.Error("the sandbox wrote claudebox's live records")
			}
			for f, b := range before {
				if got, _ := os.ReadFile(filepath.Join(proj, f)); !bytes.Equal(got, b) {
					t.Errorf("%s changed: %q, was %q", f, got, b)
				}
			}
		})
	}
}
