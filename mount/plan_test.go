package mount

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
)

func testPlan() Plan {
	root := "/home/al ice/code/it's \"ü\" $HOME `x`"
	return Build(Inputs{
		Home: "/home/al ice", StateDir: "/home/al ice/.claudebox",
		Project: instance.Project{Root: root, Checkout: root},
		Cwd:     root + "/sub dir",
		Host:    Host{System: []HostPath{{Path: "/usr"}, {Path: "/bin", Link: "usr/bin"}}},
		Env:     Env{Names: []string{"HOME", "ANTHROPIC_API_KEY"}},
		Network: true,
		Command: []string{"/usr/bin/claude", "-p", "it's; rm -rf ~", "--model", "opus"},
		Claude:  true,
	})
}

// The script --dry-run prints, run by a shell, passes bwrap exactly Args.
func TestScriptIsArgs(t *testing.T) {
	p := testPlan()
	script := p.Script("/usr/bin/bwrap")
	for strings.HasPrefix(script, "#") {
		_, script, _ = strings.Cut(script, "\n")
	}
	first, rest, _ := strings.Cut(script, "\n")
	if first != `env -i DISABLE_AUTOUPDATER=1 PYTHONPYCACHEPREFIX=/tmp/pycache CLAUDE_CODE_DISABLE_BG_EXIT_HANDOFF=1 CLAUDE_CODE_RESUME_HINT_COMMAND=claudebox HOME='/home/al ice' ANTHROPIC_API_KEY="$ANTHROPIC_API_KEY" \` {
		t.Fatalf("first line = %q", first)
	}
	rest = strings.Replace(rest, "/usr/bin/bwrap", "printf '%s\\n'", 1)
	out, err := exec.Command("sh", "-c", rest).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if want := p.Args(); !reflect.DeepEqual(got, want) {
		t.Fatalf("shell saw\n%q\nwant\n%q", got, want)
	}
}

func TestArgsOrder(t *testing.T) {
	args := strings.Join(testPlan().Args(), "\n")
	order := []string{
		"--ro-bind\n/usr\n/usr",
		"--tmpfs\n/home/al ice\n",
		"--tmpfs\n/home/al ice/.claude\n",
		"\n/home/al ice/.claude/projects\n",
		"\n/home/al ice/.claude/history.jsonl\n",
		"\n/home/al ice/.claude.json\n",
		"--chdir\n",
		"\n--\n/usr/bin/claude\n--append-system-prompt-file\n/home/al ice/.claude/SANDBOX.md\n-p\n",
	}
	at := 0
	for _, s := range order {
		i := strings.Index(args[at:], s)
		if i < 0 {
			t.Fatalf("%q missing or out of order in\n%s", s, args)
		}
		at += i + len(s)
	}
}

// ~/.claude inside is a tmpfs holding the real entries read-only and private
// copies of the files Claude Code saves; the copies' contents go on the
// descriptors after the seccomp filter, in the order the argv names them.
func TestClaudeDirRebuilt(t *testing.T) {
	in := Inputs{
		Home: "/h", StateDir: "/h/.claudebox",
		Project: instance.Project{Root: "/h/p", Checkout: "/h/p"},
		Cwd:     "/h/p",
		Host: Host{
			ClaudeEntries: []string{"/h/.claude/plugins", "/h/.claude/statusline.sh"},
			ClaudeCopies:  []Copy{{Path: "/h/.claude/settings.json", Src: "/h/.claude/settings.json"}},
			Guards:        []Guard{{Path: "/h/p/.mcp.json", Copy: true}, {Path: "/h/p/.claude", Exists: true}, {Path: "/h/p/.claude/settings.local.json", Copy: true, FileStandIn: true}},
		},
		Command: []string{"/usr/bin/claude"}, Claude: true,
	}
	p := Build(in)
	args := strings.Join(p.Args(), "\n")
	for _, s := range []string{
		"--seccomp\n3\n",
		"--tmpfs\n/h/.claude\n--ro-bind-try\n/h/.claude/plugins\n/h/.claude/plugins\n--ro-bind-try\n/h/.claude/statusline.sh\n/h/.claude/statusline.sh\n--bind-data\n4\n/h/.claude/settings.json\n",
		"--tmpfs\n/h/p/.mcp.json\n--ro-bind\n/h/p/.claude\n/h/p/.claude\n--bind-data\n6\n/h/p/.claude/settings.local.json\n",
	} {
		if !strings.Contains(args, s) {
			t.Errorf("args lack %q:\n%s", s, args)
		}
	}
	var sources []string
	for _, m := range p.DataMounts() {
		sources = append(sources, m.Src)
	}
	// The settings' copy, SANDBOX.md, the project's two.
	if want := []string{"/h/.claude/settings.json", "", "", ""}; !reflect.DeepEqual(sources, want) {
		t.Errorf("DataMounts' sources = %q, want %q", sources, want)
	}
	var placeholders []string
	for _, m := range p.Placeholders() {
		placeholders = append(placeholders, m.Dest)
	}
	if want := []string{"/h/p/.mcp.json", "/h/p/.claude/settings.local.json"}; !reflect.DeepEqual(placeholders, want) {
		t.Errorf("Placeholders = %q, want %q", placeholders, want)
	}
}

// Each guard becomes the mount its state calls for.
func TestGuardMount(t *testing.T) {
	for _, c := range []struct {
		g           Guard
		kind        Kind
		src         string
		placeholder bool
	}{
		{Guard{Path: "/p/.git/hooks", Exists: true}, RoBind, "/p/.git/hooks", false},
		{Guard{Path: "/p/.git/hooks"}, Tmpfs, "", true},
		{Guard{Path: "/p/.mcp.json", Copy: true, Exists: true}, BindData, "/p/.mcp.json", false},
		{Guard{Path: "/p/.mcp.json", Copy: true}, Tmpfs, "", true},
		{Guard{Path: "/p/.git/worktrees/x/config.worktree", NoOp: true}, RoBind, "/p/.git/worktrees/x/config.worktree", true},
		{Guard{Path: "/p/.git/commondir", NoOp: true, Exists: true}, RoBind, "/p/.git/commondir", false},
		{Guard{Path: "/p/.claude/settings.json", FileStandIn: true, Copy: true}, BindData, "", true},
	} {
		m := c.g.Mount()
		if m.Kind != c.kind || m.Src != c.src || m.Dest != c.g.Path || m.placeholder != c.placeholder {
			t.Errorf("%+v: got %s %q placeholder=%v, want %s %q placeholder=%v", c.g, m.Kind, m.Src, m.placeholder, c.kind, c.src, c.placeholder)
		}
	}
}

// A word with control characters is quoted $'…': bash reads back the exact
// bytes, and the script holds none of them raw.
func TestQuoteControl(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, s := range []string{"/opt/k\x1b[2K\r  x", "a\nb", "it's \\ \u009b \u202e ü", "bad\xff", "ok dir"} {
		q := Quote(s)
		for _, r := range q {
			if printable.IsControl(r) {
				t.Fatalf("Quote(%q) = %q holds %U raw", s, q, r)
			}
		}
		out, err := exec.Command("bash", "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Errorf("bash read Quote(%q) = %s as %q, %v", s, q, out, err)
		}
	}
}

// A missing directory's stand-in is not writable inside; a missing
// .claude's holds private copies of the settings Claude Code saves, and a
// .gitignore that keeps git inside from offering them for a commit; only
// the directory itself is a placeholder on the host.
func TestStandInDirectory(t *testing.T) {
	p := Build(Inputs{
		Home: "/h", StateDir: "/h/.claudebox",
		Project: instance.Project{Root: "/h/p", Checkout: "/h/p"},
		Cwd:     "/h/p",
		Host:    Host{Guards: []Guard{{Path: "/h/p/.vscode"}, {Path: "/h/p/.claude", Saved: []string{"settings.json", "settings.local.json"}}}},
		Command: []string{"/usr/bin/claude"}, Claude: true,
	})
	args := strings.Join(p.Args(), "\n")
	for _, s := range []string{
		"--perms\n0555\n--tmpfs\n/h/p/.vscode\n",
		"--perms\n0555\n--tmpfs\n/h/p/.claude\n--bind-data\n5\n/h/p/.claude/settings.json\n--bind-data\n6\n/h/p/.claude/settings.local.json\n--ro-bind-data\n7\n/h/p/.claude/.gitignore\n",
	} {
		if !strings.Contains(args, s) {
			t.Errorf("args lack %q:\n%s", s, args)
		}
	}
	var contents []string
	for _, m := range p.DataMounts() {
		if !m.executable {
			contents = append(contents, m.Src+m.Content)
		}
	}
	// SANDBOX.md (filled by AddSandboxMD), the two settings, the .gitignore.
	if want := []string{"", "", "", "*\n"}; !reflect.DeepEqual(contents, want) {
		t.Errorf("DataMounts hold %q, want %q", contents, want)
	}
	var placeholders []string
	for _, m := range p.Placeholders() {
		placeholders = append(placeholders, m.Dest)
	}
	if want := []string{"/h/p/.vscode", "/h/p/.claude"}; !reflect.DeepEqual(placeholders, want) {
		t.Errorf("Placeholders = %q, want %q", placeholders, want)
	}
}
