package sandboxmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// In a linked worktree, SANDBOX.md names the repository's git directory
// as writable, once: the directories pinned inside it to hold its
// protections are not more places to write.
func TestRenderWorktree(t *testing.T) {
	home := t.TempDir()
	app := filepath.Join(home, "app")
	for _, args := range [][]string{{"init", "-q", app}, {"-C", app, "commit", "-q", "--allow-empty", "-m", "x"}, {"-C", app, "worktree", "add", "-q", filepath.Join(home, "fix")}} {
		if out, err := exec.Command("git", append([]string{"-c", "user.name=a", "-c", "user.email=a@b"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", args, err, out)
		}
	}
	project, err := instance.Resolve(filepath.Join(home, "fix"))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, ".claudebox")
	h := mount.Probe(home, state, project, "/usr/bin/true", home, "/usr/bin", nil, mount.StateDirs(home, nil))
	if len(h.Pins) == 0 {
		t.Fatal("no pins: the case this test is about does not arise")
	}
	md := string(Render(mount.Build(mount.Inputs{Home: home, StateDir: state, Project: project, Cwd: project.Checkout, Host: h, Command: []string{"sh"}})))
	if want := "\n- Also writable: " + filepath.Join(app, ".git") + ". Changes there persist on the host.\n"; !strings.Contains(md, want) {
		t.Errorf("SANDBOX.md lacks %q:\n%s", want, md)
	}
}
