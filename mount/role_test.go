package mount

import (
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// Each mount carries the role of what made it, split or not: the user's
// binds, claudebox's own mounts of the git configuration and of a
// toolchain, each piece of them.
func TestExpandBindsRoles(t *testing.T) {
	home := t.TempDir()
	tree(t, home, "notes/a", ".gitconfig", ".nvm/versions/node/v20/bin/node", ".nvm/versions/node/v20/lib/x", "cache/")
	project := instance.Project{Root: "/srv/p", Checkout: "/srv/p"}
	binds := []BindSpec{{Src: home + "/notes", Dest: home + "/notes"}, {Src: home + "/cache", Dest: "/opt/cache", Writable: true}}
	own := []ownBind{
		{home + "/.gitconfig", home + "/.gitconfig", "git configuration, read-only", HostFiles},
		{home + "/.nvm/versions/node/v20", home + "/.nvm/versions/node/v20", "a toolchain", Tools},
	}
	// The bind of ~ is split around the secrets and the state it holds.
	user, ownMounts, _, _ := expandBinds(home, project, append(binds, BindSpec{Src: home, Dest: "/opt/home"}), own, StateDirs(home, nil), secretSet(home), nil)
	for _, m := range user {
		if m.Role != Requested {
			t.Errorf("the user's %s %s: role %v", m.Kind, m.Dest, m.Role)
		}
	}
	want := map[string]Role{home + "/.gitconfig": HostFiles, home + "/.nvm/versions/node/v20": Tools}
	for _, m := range ownMounts {
		if r, ok := want[m.Dest]; !ok || m.Role != r {
			t.Errorf("own %s %s: role %v", m.Kind, m.Dest, m.Role)
		}
	}
	if len(ownMounts) != 2 || len(user) < 3 {
		t.Errorf("user %d, own %d mounts", len(user), len(ownMounts))
	}
}

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
			resolvConf:   "/run/resolv.conf",
			ClaudeCopies: []string{"/h/.claude/settings.json"}, claudeEntries: []string{"/h/.claude/agents"},
			Own:        []Mount{{Kind: RoBind, Src: "/h/.gitconfig", Dest: "/h/.gitconfig", Role: HostFiles}, {Kind: RoBind, Src: "/h/.nvm", Dest: "/h/.nvm", Role: Tools}},
			Binds:      []Mount{{Kind: Bind, Src: "/srv/c", Dest: "/opt/c", Role: Requested}},
			links:      []HostPath{{Path: "/h/.local/bin/claude", Link: "x"}},
			Pins:       []string{"/h/p/.git/worktrees"},
			Guards:     []Guard{{Path: "/h/p/.git/hooks", Exists: true}, {Path: "/h/p-fix/.envrc"}},
			KnownHosts: "/h/.ssh/known_hosts",
		},
		SSHAgent: "/run/agent", Command: []string{"sh"},
	})
	want := map[string]Role{
		"/usr": HostFiles, "/bin": HostFiles, "/proc": Private, "/dev": Private, "/tmp": Private, "/run/resolv.conf": HostFiles, "/h": Private,
		"/opt/c": Requested, "/h/.claude": ClaudeConfig, "/h/.claude/agents": ClaudeConfig, "/h/.claude/settings.json": ClaudeConfig,
		"/h/.claude/projects": ClaudeConfig, "/h/.claude/projects/" + instance.RootFile: ClaudeConfig, "/h/.claude/projects/" + SandboxMDFile: ClaudeConfig,
		"/h/.claude/projects/" + HistoryFile: ClaudeConfig, "/h/.claude/" + HistoryFile: ClaudeConfig, "/h/.claude/" + SandboxMDFile: ClaudeConfig,
		"/h/.claude.json": ClaudeConfig,
		"/h/.gitconfig":   HostFiles, "/h/.nvm": Tools, sshAgentSocket: Agent, "/h/.ssh/known_hosts": HostFiles, "/h/.local/bin/claude": HostFiles,
		"/h/p-fix": ProjectTree, "/h/p/.git": GitDir, "/h/p/.git/worktrees": Protection, "/h/p/.git/hooks": Protection, "/h/p-fix/.envrc": Protection,
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
