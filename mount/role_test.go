package mount

import (
	"testing"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/instance"
)

// Build gives each of its mounts the role SANDBOX.md describes it by, and
// keeps the probe's: only the user's binds, the project, its git
// directories, claudebox's own state, the protections and the agent are
// writable.
func TestBuildRoles(t *testing.T) {
	p := Build(Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Cwd: "/h/p-fix",
		Project: instance.Project{Root: "/h/p", Checkout: "/h/p-fix", GitDirs: []string{"/h/p/.git"}},
		Host: Host{
			System:       []HostPath{{Path: "/usr"}, {Path: "/bin", Link: "usr/bin"}},
			ResolvConf:   "/run/resolv.conf",
			ClaudeCopies: []Copy{{Path: "/h/.claude/settings.json", Src: "/h/.claude/settings.json"}}, ClaudeEntries: []string{"/h/.claude/agents"},
			Own:        []Mount{{Kind: RoBind, Src: "/h/.gitconfig", Dest: "/h/.gitconfig", Role: HostFiles}, {Kind: RoBind, Src: "/h/.nvm", Dest: "/h/.nvm", Role: Tools}},
			Binds:      []Mount{{Kind: Bind, Src: "/srv/c", Dest: "/opt/c", Role: Requested}},
			Links:      []HostPath{{Path: "/h/.local/bin/claude", Link: "x"}},
			Pins:       []string{"/h/p/.git/worktrees"},
			Guards:     []Guard{{Path: "/h/p/.git/hooks", Exists: true}, {Path: "/h/p-fix/.envrc"}},
			KnownHosts: "/h/.ssh/known_hosts",
		},
		SSHAgent: "/run/agent", Exe: "/usr/bin/claudebox", Command: []string{"sh"},
	})
	want := map[string]Role{
		"/usr": HostFiles, "/bin": HostFiles, "/proc": Private, "/dev": Private, "/tmp": Private, "/run/resolv.conf": HostFiles, "/h": Private,
		"/opt/c": Requested, "/h/.claude": ClaudeConfig, "/h/.claude/agents": ClaudeConfig, "/h/.claude/settings.json": ClaudeConfig,
		"/h/.claude/projects": ClaudeConfig, "/h/.claude/projects/" + instance.RootFile: ClaudeConfig,
		"/h/.claude/projects/" + HistoryFile: ClaudeConfig, "/h/.claude/" + HistoryFile: ClaudeConfig, "/h/.claude/" + SandboxMDFile: ClaudeConfig,
		"/h/.claude.json": ClaudeConfig, "/h/.claude/projects/" + instance.AgentsDir: ClaudeConfig,
		"/h/.gitconfig": HostFiles, "/h/.nvm": Tools, SSHAgentSocket: Agent, "/h/.ssh/known_hosts": HostFiles, "/h/.local/bin/claude": HostFiles,
		"/h/p-fix": ProjectTree, "/h/p/.git": GitDir, "/h/p/.git/worktrees": Protection, "/h/p/.git/hooks": Protection, "/h/p-fix/.envrc": Protection,
		gitWrapperDir + "/git": Private, inside.Exe: Private,
	}
	if len(p.Mounts) != len(want) {
		t.Errorf("%d mounts, want %d", len(p.Mounts), len(want))
	}
	for _, m := range p.Mounts {
		if r, ok := want[m.Dest]; !ok || m.Role != r {
			t.Errorf("%s %s: role %v, want %v", m.Kind, m.Dest, m.Role, r)
		}
		if m.writable() && (m.Role == Private || m.Role == HostFiles || m.Role == Tools) {
			t.Errorf("%s %s is writable with role %v", m.Kind, m.Dest, m.Role)
		}
	}
}
