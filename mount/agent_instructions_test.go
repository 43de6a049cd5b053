package mount

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// TestAddSandboxMD: the agent's instructions file inside is a read-only
// copy of the user's with SANDBOX.md's text after it, or the text alone
// when the user has none; a plan without such an agent is left as it was.
func TestAddSandboxMD(t *testing.T) {
	for _, host := range []string{"my own rules\n\n\n", ""} {
		p := &Plan{}
		a := &AgentConfig{Name: "gemini", Dir: "/h/.gemini", Instructions: "/h/.gemini/GEMINI.md", InstructionsHost: host}
		p.Agent = a
		p.addAgentConfig(a, "/h/.claudebox/projects/x")
		p.AddSandboxMD("# Sandbox\n")
		var got []Mount
		for _, m := range p.Mounts {
			if m.Dest == "/h/.gemini/GEMINI.md" {
				got = append(got, m)
			}
		}
		want := "# Sandbox\n"
		if host != "" {
			want = "my own rules\n\n# Sandbox\n"
		}
		if len(got) != 1 || got[0].Kind != RoBindData || got[0].Content != want || !strings.Contains(got[0].Why, "read-only copy of your GEMINI.md") {
			t.Errorf("host %q: %+v", host, got)
		}
	}
	p := &Plan{}
	p.AddSandboxMD("# Sandbox\n")
	if len(p.Mounts) != 0 {
		t.Errorf("%+v", p.Mounts)
	}
}

// TestSandboxMDIsTheSessions: SANDBOX.md inside is this session's own data,
// never a file of the instance's, which a launch in another worktree of
// the project would rewrite while this one's bwrap binds it.
func TestSandboxMDIsTheSessions(t *testing.T) {
	p := Build(Inputs{Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Command: []string{"/usr/bin/claude"}, Claude: true})
	p.AddSandboxMD("# Sandbox\n")
	var got []Mount
	for _, m := range p.Mounts {
		if filepath.Base(m.Dest) == SandboxMDFile || filepath.Base(m.Src) == SandboxMDFile {
			got = append(got, m)
		}
	}
	if len(got) != 1 || got[0].Kind != RoBindData || got[0].Dest != "/h/.claude/SANDBOX.md" || got[0].Content != "# Sandbox\n" || got[0].Src != "" {
		t.Errorf("%+v", got)
	}
}
