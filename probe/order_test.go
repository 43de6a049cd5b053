package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// bwrap applies mounts in order, and a mount hides everything an earlier
// one put beneath its path. So every mount nested inside another must come
// after it: a guard after the writable project it protects, a pin after
// the git directory it sits in, the private copies after ~/.claude's
// tmpfs. A plan that puts the project's bind after its guards passes every
// other fast test and leaves the guards hidden.
func TestBuildNestedMountsFollowTheirParent(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".claudebox")
	main := filepath.Join(home, "code", "app")
	linked := filepath.Join(home, "code", "app-fix")
	testfs.Write(t, filepath.Join(home, ".claude", "settings.json"), "{}")
	testfs.Write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = a\n")
	testfs.Write(t, filepath.Join(home, "data", ".envrc"), "")
	for _, args := range [][]string{
		{"init", "-q", main},
		{"-C", main, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x"},
		{"-C", main, "worktree", "add", "-q", linked},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v: %s", args, err, out)
		}
	}
	for _, dir := range []string{main, linked} {
		testfs.Write(t, filepath.Join(dir, ".claude", "settings.json"), "{}")
		testfs.Write(t, filepath.Join(dir, ".vscode", "tasks.json"), "{}")
		testfs.Write(t, filepath.Join(dir, "sub", ".git", "HEAD"), "ref: refs/heads/main\n")
		os.MkdirAll(filepath.Join(dir, "sub", ".git", "objects"), 0o755)
	}
	binds := []mount.BindSpec{{Src: filepath.Join(home, "data"), Dest: filepath.Join(home, "data"), Writable: true, From: "--bind"}}
	for _, checkout := range []string{main, linked} {
		project, err := instance.Resolve(checkout)
		if err != nil {
			t.Fatal(err)
		}
		in := mount.Inputs{
			Home: home, StateDir: state, Project: project, Cwd: checkout, Binds: binds,
			Command: []string{"/usr/bin/claude"}, Claude: true,
		}
		in.Host = Host(home, state, project, "/usr/bin/claude", env("HOME", home, "PATH", "/usr/bin"), binds, bind.StateDirs(home, []string{state}), nil, nil, nil, nil)
		p := mount.Build(in)
		if len(p.Guards) == 0 {
			t.Fatalf("%s: the probe found no guards; the test checks nothing", checkout)
		}
		for i, earlier := range p.Mounts {
			for _, later := range p.Mounts[i+1:] {
				// A remount changes the mount at its path, hiding nothing.
				if earlier.Dest != later.Dest && paths.Within(earlier.Dest, later.Dest) && later.Kind != mount.RemountRO {
					t.Errorf("%s: %s %s comes before %s %s, which hides it", checkout, earlier.Kind, earlier.Dest, later.Kind, later.Dest)
				}
			}
		}
	}
}
