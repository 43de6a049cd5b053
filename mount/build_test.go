package mount

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/instance"
)

// mountLines are a plan's mounts as "KIND SRC DEST".
func mountLines(p Plan) []string {
	var lines []string
	for _, m := range p.Mounts {
		lines = append(lines, string(m.Kind)+" "+m.Src+" "+m.Dest)
	}
	return lines
}

// Build turns each host fact into its mount, and leaves out what the host
// does not have or the user did not ask for.
func TestBuildHostFacts(t *testing.T) {
	const home, state = "/h", "/h/.claudebox"
	inst := instance.Dir(state, "/h/p")
	base := func() Inputs {
		return Inputs{Home: home, StateDir: state, Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Exe: "/usr/bin/claudebox", Command: []string{"/usr/bin/claude", "-c"}}
	}
	for _, c := range []struct {
		name    string
		in      func(*Inputs)
		has     []string
		hasNot  []string // substrings no mount line holds
		command []string
	}{
		{
			"nothing more", func(*Inputs) {},
			[]string{"--bind /h/p /h/p", "--bind " + inst + " /h/.claude/projects"},
			[]string{"resolv.conf", ".credentials.json", "ssh", "known_hosts"},
			[]string{"/usr/bin/claude", "-c"},
		},
		{
			"resolv.conf outside /etc", func(in *Inputs) { in.Host.ResolvConf = "/run/systemd/resolve/stub-resolv.conf" },
			[]string{"--ro-bind /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf"},
			nil, nil,
		},
		{"a login is never mounted: the proxy holds it", func(in *Inputs) {
			in.API = &API{Variable: "CLAUDE_CODE_OAUTH_TOKEN", Source: "/h/.claude/.credentials.json", Address: ClaudeAPIAddress}
		}, nil, []string{".credentials.json"}, nil},
		{
			"the SSH agent with known_hosts", func(in *Inputs) { in.SSHAgent, in.Host.KnownHosts = "/run/user/1/agent.sock", "/h/.ssh/known_hosts" },
			[]string{"--bind /run/user/1/agent.sock " + SSHAgentSocket, "--ro-bind /h/.ssh/known_hosts /h/.ssh/known_hosts"},
			nil, nil,
		},
		{
			"the SSH agent alone", func(in *Inputs) { in.SSHAgent = "/run/user/1/agent.sock" },
			[]string{"--bind /run/user/1/agent.sock " + SSHAgentSocket},
			[]string{"known_hosts"},
			nil,
		},
		{"known_hosts without the agent", func(in *Inputs) { in.Host.KnownHosts = "/h/.ssh/known_hosts" }, nil, []string{"known_hosts"}, nil},
		{
			"links on the way to a program", func(in *Inputs) {
				in.Host.Own = []Mount{{Kind: RoBind, Src: "/h/.local/share/claude", Dest: "/h/.local/share/claude"}}
				in.Host.Links = []HostPath{
					{Path: "/h/.local/bin/claude", Link: "../share/claude/versions/2"}, // in $HOME's tmpfs: made
					{Path: "/h/.local/share/claude/current", Link: "versions/2"},       // inside a mount: there already
					{Path: "/h/.claude.json", Link: "elsewhere"},                       // a mount's own path
					{Path: "/opt/tools", Link: "/srv/tools"},
				}
			},
			[]string{"--symlink ../share/claude/versions/2 /h/.local/bin/claude", "--symlink /srv/tools /opt/tools"},
			[]string{"--symlink versions/2", "--symlink elsewhere"},
			nil,
		},
		{"a worktree's git directory and the pins", func(in *Inputs) {
			in.Project = instance.Project{Root: "/h/p", Checkout: "/h/p-fix", GitDirs: []string{"/h/p/.git"}}
			in.Host.Pins = []string{"/h/p/.git/worktrees"}
		}, []string{"--bind /h/p-fix /h/p-fix", "--bind /h/p/.git /h/p/.git", "--bind /h/p/.git/worktrees /h/p/.git/worktrees"}, nil, nil},
		{
			"claude gets SANDBOX.md", func(in *Inputs) { in.Claude = true }, nil, nil,
			[]string{"/usr/bin/claude", "--append-system-prompt-file", "/h/.claude/SANDBOX.md", "-c"},
		},
		{
			"SANDBOX.md carries the user's own appended prompt file", func(in *Inputs) {
				in.Claude, in.Host.AppendPrompt = true, &Prompt{Path: "/h/p.md", Text: "mine"}
				in.Command = []string{"/usr/bin/claude", "--append-system-prompt-file", "/h/p.md", "-c", "--append-system-prompt-file=/h/p.md", "--", "--append-system-prompt-file", "x"}
			}, nil, nil,
			[]string{"/usr/bin/claude", "--append-system-prompt-file", "/h/.claude/SANDBOX.md", "-c", "--", "--append-system-prompt-file", "x"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := base()
			c.in(&in)
			p := Build(in)
			lines := strings.Join(mountLines(p), "\n")
			for _, s := range c.has {
				if !slices.Contains(mountLines(p), s) {
					t.Errorf("no %q in\n%s", s, lines)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(lines, s) {
					t.Errorf("%q in\n%s", s, lines)
				}
			}
			if c.command != nil && !reflect.DeepEqual(p.Command, c.command) {
				t.Errorf("Command = %q, want %q", p.Command, c.command)
			}
			for _, m := range p.Mounts {
				if m.Dest == "" || m.Src == "" && m.Kind != Proc && m.Kind != Dev && m.Kind != Tmpfs && m.Kind != RoBindData {
					t.Errorf("a mount without a path: %+v", m)
				}
			}
			if p.SSHAgent != (in.SSHAgent != "") {
				t.Errorf("SSHAgent = %v", p.SSHAgent)
			}
		})
	}
}

// Without the network the sandbox gets its own namespace; the descriptors
// follow the data mounts, whatever their number. On every network the
// command runs behind claudebox, which makes it the terminal's foreground
// job (Ctrl-Z).
func TestArgsNetworkAndDescriptors(t *testing.T) {
	in := Inputs{Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Command: []string{"sh"}}
	for _, c := range []struct {
		network bool
		copies  []string
		want    string
	}{
		{true, nil, "--die-with-parent --userns 5 --info-fd 6 --block-fd 7 --seccomp 3 "},
		{false, nil, "--die-with-parent --userns 5 --info-fd 6 --block-fd 7 --unshare-net --seccomp 3 "},
		{true, []string{"/h/.claude/settings.json", "/h/.claude/CLAUDE.md"}, "--die-with-parent --userns 7 --info-fd 8 --block-fd 9 --seccomp 3 "},
	} {
		in.Network = c.network
		for _, f := range c.copies {
			in.Host.ClaudeCopies = append(in.Host.ClaudeCopies, Copy{Path: f, Src: f})
		}
		args := strings.Join(Build(in).Args(), " ")
		if !strings.Contains(args, c.want) {
			t.Errorf("network %v, copies %d: args %s", c.network, len(c.copies), args)
		}
		if got := strings.Contains(args, "--unshare-net"); got == c.network {
			t.Errorf("network %v: --unshare-net %v", c.network, got)
		}
		// No socket is made in the project, where a host client may
		// connect, nor in the instance, where a link in the project may
		// lead it.
		no := " " + inside.NoSocketsFlag + " "
		if want := " -- " + inside.Exe + " " + inside.ExecFlag + no + "/h/p" + no + "/h/.claude/projects" + no + "/h/.claude/history.jsonl -- sh"; !strings.HasSuffix(args, want) {
			t.Errorf("network %v: args %s, want them to end with %s", c.network, args, want)
		}
	}
}

// The script's comments say what each descriptor carries and where each
// value that is not the host's comes from, never the value; what it needs
// from a file it reads from there.
func TestScriptComments(t *testing.T) {
	const secret = "s3cr3t-value"
	p := Build(Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p",
		Host: Host{
			ClaudeCopies: []Copy{{Path: "/h/.claude/settings.json", Src: "/h/.claude/settings.json"}},
			Guards:       []Guard{{Path: "/h/p/.claude/settings.local.json", Copy: true, FileStandIn: true}},
			Toolchains:   []Toolchain{{Entry: "/h/.cargo/bin", Roots: []Root{{"/h/.rustup/toolchains", "what /h/.cargo/bin runs"}}}},
			PathProblems: []PathProblem{{"/h/bin", "it does not exist"}},
			Unprotected:  []Unprotected{{"your PATH", `the relative entry "bin\x1b[2K" runs what is in whichever directory your shell is in`}},
			Hidden:       []Hidden{{Path: "/h/.ssh", By: BindSpec{Src: "/h", Dest: "/h"}}, {Path: "/h/.config/gh\x1b[2K", By: BindSpec{Src: "/h/.config", Dest: "/h/.config"}, Own: true}},
		},
		Env: planEnv(environment.Env{
			Names:  []string{"HOME", "FLAG", "TOML", "LINES", "PATH", updaterOff},
			From:   map[string]string{"TOML": "/h/p/.claudebox.toml", "LINES": "/h/p/.claudebox.env"},
			Values: map[string]string{"FLAG": secret, "TOML": secret, "LINES": secret},
			Lines:  map[string]bool{"LINES": true},
		}),
		SSHAgent: "/run/agent", Command: []string{"sh"},
	})
	script := p.Script("/usr/bin/bwrap")
	if strings.Contains(script, secret) {
		t.Fatalf("the script prints a value:\n%s", script)
	}
	for _, line := range []string{
		"# fd 3: seccomp filter (no TIOCSTI or TIOCLINUX, no new user namespaces)",
		"# fd 4: copy of /h/.claude/settings.json",
		"# fd 5: SANDBOX.md, this session's facts, rendered from this plan",
		"# fd 6: empty",
		"# fd 8: the user namespace of claudebox's guard watcher; fd 9: bwrap reports the sandbox's pid; fd 10: bwrap waits until the guards are watched",
		"# FLAG: the value given with --env FLAG=…, not shown",
		"# TOML: the value set in /h/p/.claudebox.toml, not shown",
		"# /h/.rustup/toolchains: what /h/.cargo/bin runs",
		"# PATH entry /h/bin does not work inside: it does not exist",
		`# not protected: your PATH: the relative entry "bin\x1b[2K" runs what is in whichever directory your shell is in`,
		"# /h/.ssh is hidden under --ro-bind /h: bind it itself to show it",
		`# /h/.config/gh\x1b[2K is hidden under claudebox's read-only mount of /h/.config: bind it yourself to show it`,
	} {
		if !slices.Contains(strings.Split(script, "\n"), line) {
			t.Errorf("no line %q in\n%s", line, script)
		}
	}
	if strings.Contains(script, "# LINES") || strings.Contains(script, "# HOME") || strings.Contains(script, "# PATH:") {
		t.Errorf("a comment for a variable the script sets itself or the host's:\n%s", script)
	}
	env, _, _ := strings.Cut(script[strings.Index(script, "env -i"):], " \\\n")
	if want := `env -i DISABLE_AUTOUPDATER=1 PYTHONPYCACHEPREFIX=/tmp/pycache SSH_AUTH_SOCK=` + SSHAgentSocket + ` HOME=/h FLAG="$FLAG" TOML="$TOML" LINES="$(sed -n 's/^[[:space:]]*\(export[[:space:]]*\)\{0,1\}LINES=//p' /h/p/.claudebox.env | tail -n 1)" PATH="` + gitWrapperDir + `:$PATH"`; env != want {
		t.Errorf("env line\n%s\nwant\n%s", env, want)
	}
}

// The script reads a variable an env file sets as the launch does: the
// last line that sets it, with or without export, the value unquoted.
func TestScriptReadsEnvFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "it's.env")
	if err := os.WriteFile(file, []byte("REGION=us-east-1\n  export REGION=eu west=1\nREGIONAL=no\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := environment.ReadFile(file, false)
	if err != nil {
		t.Fatal(err)
	}
	env, err := environment.Resolve(nil, nil, []environment.File{f})
	if err != nil {
		t.Fatal(err)
	}
	p := Build(Inputs{Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Env: planEnv(env), Command: []string{"sh"}})
	script := p.Script("BWRAP")
	script = script[strings.Index(script, "env -i"):]
	script = strings.Replace(script, "BWRAP", `sh -c 'printf %s "$REGION"' sh`, 1)
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != env.Values["REGION"] || string(out) != "eu west=1" {
		t.Errorf("the script read %q, the launch %q", out, env.Values["REGION"])
	}
}

// Only a bind lets the sandbox write to the host: a private copy or tmpfs
// does not.
func TestWritable(t *testing.T) {
	for k, want := range map[Kind]bool{Bind: true, RoBind: false, RoBindTry: false, BindData: false, RoBindData: false, Tmpfs: false, Symlink: false} {
		if got := (Mount{Kind: k}).writable(); got != want {
			t.Errorf("%s: Writable = %v", k, got)
		}
	}
}

// planEnv is what a launch gives the plan of env, as session does.
func planEnv(env environment.Env) Env {
	return Env{Names: env.Names, From: env.SetFrom(), Lines: env.Lines}
}
