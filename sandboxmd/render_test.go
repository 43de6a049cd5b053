package sandboxmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
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
	h := probe.Host(home, state, project, "/usr/bin/true", func(name string) string { return map[string]string{"HOME": home, "PATH": "/usr/bin"}[name] }, nil, bind.StateDirs(home, nil), nil, nil, nil, nil)
	if len(h.Pins) == 0 {
		t.Fatal("no pins: the case this test is about does not arise")
	}
	md := string(Render(mount.Build(mount.Inputs{Home: home, StateDir: state, Project: project, Cwd: project.Checkout, Host: h, Command: []string{"sh"}})))
	if want := "\n- Also writable: " + filepath.Join(app, ".git") + ". Changes there persist on the host.\n"; !strings.Contains(md, want) {
		t.Errorf("SANDBOX.md lacks %q:\n%s", want, md)
	}
}

// The toolchains, the PATH entries that cannot work, the secrets hidden
// inside claudebox's own mounts and the SSH agent each get their line; a
// toolchain's mounts are not also listed as read-only paths.
func TestRenderToolsAndAgent(t *testing.T) {
	h := host
	h.Own = append(h.Own, mount.Mount{Kind: mount.RoBind, Src: "/home/alice/.nvm/versions/node/v20", Dest: "/home/alice/.nvm/versions/node/v20", Role: mount.Tools})
	h.Toolchains = []mount.Toolchain{{Entry: "/home/alice/.nvm/versions/node/v20/bin", Roots: []mount.Root{{Path: "/home/alice/.nvm/versions/node/v20"}}}}
	h.PathProblems = []mount.PathProblem{{Entry: "/home/alice/.ssh/bin", Reason: "it lies in /home/alice/.ssh, which the sandbox hides"}}
	h.Hidden = []mount.Hidden{{Path: "/home/alice/.config/git/credentials", Own: true}}
	h.KnownHosts = "/home/alice/.ssh/known_hosts"
	project := instance.Project{Root: "/srv/data", Checkout: "/srv/data"}
	md := string(Render(mount.Build(mount.Inputs{
		Home: "/home/alice", StateDir: "/home/alice/.claudebox", Project: project, Cwd: project.Checkout, Host: h,
		SSHAgent: "/run/user/1000/agent", Command: []string{"sh"},
	})))
	for _, line := range []string{
		"- The toolchains on PATH, read-only (their programs run; install or update them on the host): /home/alice/.nvm/versions/node/v20/bin (/home/alice/.nvm/versions/node/v20).",
		"- PATH entry /home/alice/.ssh/bin does not work here: it lies in /home/alice/.ssh, which the sandbox hides.",
		"- Read-only: /usr, /etc (only what the tools read: users, name resolution, certificates, time zone, shells; the rest of the host's is not here), /home/alice/.gitconfig, /home/alice/.ssh/known_hosts.",
		"- Hidden inside the read-only paths above (secrets): /home/alice/.config/git/credentials.",
		"- SSH: the user's SSH agent is at $SSH_AUTH_SOCK, for listing its keys and signing with them (git push over SSH works to the servers allowed on their SSH port, github.com:22 by default, whose host key the user's known_hosts holds; adding, removing or locking keys is refused); the keys themselves are not readable (~/.ssh/config and the public keys are, read-only, where they exist).",
	} {
		if !strings.Contains(md, "\n"+line+"\n") {
			t.Errorf("no line %q in\n%s", line, md)
		}
	}
}
