package sandboxmd

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

var update = flag.Bool("u", false, "update golden files")

var host = mount.Host{
	System: []mount.HostPath{{Path: "/usr"}, {Path: "/bin", Link: "usr/bin"}, {Path: "/etc"}},
	Own:    []mount.Mount{{Kind: mount.RoBind, Src: "/home/alice/.gitconfig", Dest: "/home/alice/.gitconfig", Why: "git configuration, read-only", Role: mount.HostFiles}},
}

// guarded is host with what probe.Host finds in a typical repository.
func guarded() mount.Host {
	h := host
	app := "/home/alice/code/app"
	h.ClaudeCopies = []mount.Copy{{Path: "/home/alice/.claude/settings.json", Src: "/home/alice/.claude/settings.json"}, {Path: "/home/alice/.claude/CLAUDE.md", Src: "/home/alice/.claude/CLAUDE.md"}}
	h.Pins = []string{app + "/.git"}
	h.Guards = []mount.Guard{
		{Path: app + "/.envrc"},
		{Path: app + "/.mcp.json", Copy: true},
		{Path: app + "/.vscode", Exists: true},
		{Path: app + "/.claude", Exists: true},
		{Path: app + "/.claude/settings.local.json", Copy: true, FileStandIn: true},
		{Path: app + "/.git/config", Exists: true, FileStandIn: true},
		{Path: app + "/.git/hooks", Exists: true},
		{Path: app + "/.git/rebase-merge", Exists: true},
		{Path: app + "/.git/rebase-apply"},
		{Path: app + "/.git/sequencer"},
		{Path: app + "/bin", Exists: true, From: "your PATH"},
	}
	return h
}

func plan(project instance.Project, cwd string, env []string, network bool) mount.Plan {
	h := host
	if project.Checkout == "/home/alice/code/app" {
		h = guarded()
	}
	var api *mount.API
	if network {
		api = &mount.API{Variable: "CLAUDE_CODE_OAUTH_TOKEN", Source: "/home/alice/.claude/.credentials.json", Address: mount.ClaudeAPIAddress}
	}
	return mount.Build(mount.Inputs{
		Home: "/home/alice", StateDir: "/home/alice/.claudebox",
		Project: project, Cwd: cwd, Host: h, Env: mount.Env{Names: env}, Network: network,
		Command: []string{"/usr/bin/claude"}, Claude: true, API: api,
	})
}

// withBinds is a plan with the user's extra mounts: the home directory
// read-only (its .ssh left out), and a cache read-write.
func withBinds() mount.Plan {
	project := instance.Project{Root: "/home/alice/code/app", Checkout: "/home/alice/code/app"}
	h := guarded()
	home := mount.BindSpec{Src: "/home/alice", Dest: "/home/alice", From: "/home/alice/.config/claudebox/config.toml"}
	cache := mount.BindSpec{Src: "/srv/cache/cargo", Dest: "/home/alice/.cargo/registry", Writable: true}
	h.Binds = []mount.Mount{
		{Kind: mount.RoBind, Src: "/home/alice/notes", Dest: "/home/alice/notes", Role: mount.Requested},
		{Kind: mount.Bind, Src: "/srv/cache/cargo/index", Dest: "/home/alice/.cargo/registry/index", Role: mount.Requested},
		{Kind: mount.RoBind, Src: "/srv/cache/cargo/bin", Dest: "/home/alice/.cargo/registry/bin", Role: mount.Requested},
	}
	h.Hidden = []mount.Hidden{{Path: "/home/alice/.ssh", By: home}}
	return mount.Build(mount.Inputs{
		Home: "/home/alice", StateDir: "/home/alice/.claudebox",
		Project: project, Cwd: project.Checkout, Host: h, Env: mount.Env{Names: []string{"HOME"}}, Network: true,
		Command: []string{"/usr/bin/claude"}, Claude: true, Binds: []mount.BindSpec{home, cache},
	})
}

func TestRender(t *testing.T) {
	base := []string{"HOME", "PATH", "LANG"}
	cases := map[string]mount.Plan{
		"git-repo": plan(instance.Project{Root: "/home/alice/code/app", Checkout: "/home/alice/code/app", GitDir: "/home/alice/code/app/.git", CommonDir: "/home/alice/code/app/.git"},
			"/home/alice/code/app/src", base, true),
		"worktree": plan(instance.Project{
			Root: "/home/alice/code/app", Checkout: "/home/alice/code/app-fix",
			GitDirs: []string{"/home/alice/code/app/.git"}, GitDir: "/home/alice/code/app/.git/worktrees/app-fix", CommonDir: "/home/alice/code/app/.git",
		}, "/home/alice/code/app-fix", base, true),
		"non-git": plan(instance.Project{Root: "/srv/data", Checkout: "/srv/data"}, "/srv/data", base, true),
		"extra-env-no-network": plan(instance.Project{Root: "/home/alice/code/app", Checkout: "/home/alice/code/app"},
			"/home/alice/code/app", append(base, "AWS_PROFILE", "MY_TOOL_HOME"), false),
		"user-binds": withBinds(),
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			got := Render(p)
			golden := filepath.Join("testdata", name+".md")
			if *update {
				os.WriteFile(golden, got, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("Render differs from %s (go test -u to update):\n%s", golden, got)
			}
			if n := strings.Count(string(got), "\n"); n > 40 {
				t.Errorf("SANDBOX.md has %d lines, want at most 40", n)
			}
		})
	}
}

// Every writable path the plan binds is named in SANDBOX.md (itself, or a
// user's bind that holds it, named read-write), so it cannot claim less
// access than the sandbox has.
func TestRenderNamesEveryWritableBind(t *testing.T) {
	for _, p := range []mount.Plan{
		plan(instance.Project{
			Root: "/home/alice/code/app", Checkout: "/home/alice/code/app-fix",
			GitDirs: []string{"/home/alice/code/app/.git"},
		}, "/home/alice/code/app-fix", nil, true),
		withBinds(),
	} {
		md := string(Render(p))
		for _, m := range p.Mounts {
			if m.Kind != mount.Bind || strings.Contains(md, m.Dest) || strings.HasPrefix(m.Dest, "/home/alice/.claude/") || paths.Within(m.Dest, p.Project.Checkout) {
				continue
			}
			named := false
			for _, b := range p.Binds {
				named = named || b.Writable && paths.Within(m.Dest, b.Dest) && strings.Contains(md, b.Dest+" (read-write")
			}
			if !named {
				t.Errorf("writable %s is not in SANDBOX.md", m.Dest)
			}
		}
	}
}

// Another agent's sandbox says how its configuration, login, state and own
// sandbox are, and names its phantom, not Claude's API.
func TestRenderAgent(t *testing.T) {
	p := mount.Build(mount.Inputs{
		Home: "/home/alice", StateDir: "/home/alice/.claudebox",
		Project: instance.Project{Root: "/home/alice/p", Checkout: "/home/alice/p"}, Cwd: "/home/alice/p", Host: host,
		Command: []string{"/usr/bin/codex"}, API: &mount.API{Variable: "OPENAI_API_KEY", Source: "OPENAI_API_KEY"},
		Agent: &mount.AgentConfig{Name: "codex", Dir: "/home/alice/.codex", Secrets: []string{"/home/alice/.codex/auth.json"}, SandboxOff: "-c sandbox_mode=x"},
	})
	got := string(Render(p))
	for _, want := range []string{"- codex: /home/alice/.codex shows", "its login (auth.json) is not here", "Its own sandbox is off: -c sandbox_mode=x", "OPENAI_API_KEY here is a phantom key"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "Claude's API") {
		t.Errorf("names Claude's API:\n%s", got)
	}
}
