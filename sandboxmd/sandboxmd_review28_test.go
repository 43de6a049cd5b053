package sandboxmd

import (
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// TestRenderBesideNamesTheProjectsFolder: SANDBOX.md names the folder
// holding the project, read-only inside. It named the plan's first
// read-only remount but /etc's instead: a plugin's directory in
// ~/.claude/plugins/cache, or /usr/local/etc, came first, and Claude
// read "~/.claude/plugins/cache, the folder holding the project".
func TestRenderBesideNamesTheProjectsFolder(t *testing.T) {
	h := host
	h.UsrLocalEtc = true
	h.ClaudeFrozen = []string{"/home/alice/.claude/plugins/cache"}
	p := mount.Build(mount.Inputs{
		Home: "/home/alice", StateDir: "/home/alice/.claudebox",
		Project: instance.Project{Root: "/home/alice/code/app", Checkout: "/home/alice/code/app"}, Cwd: "/home/alice/code/app",
		Host: h, Env: mount.Env{Names: []string{"HOME"}}, Network: true,
		Command: []string{"/usr/bin/claude"}, Claude: true,
	})
	md := string(Render(p))
	for line := range strings.Lines(md) {
		if strings.Contains(line, "the folder holding the project") && !strings.HasPrefix(line, "- /home/alice/code, ") {
			t.Errorf("SANDBOX.md names another folder as the project's:\n%s", line)
		}
	}
	if !strings.Contains(md, "- /home/alice/code, the folder holding the project") {
		t.Errorf("SANDBOX.md does not name the folder holding the project:\n%s", md)
	}
}
