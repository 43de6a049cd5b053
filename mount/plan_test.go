package mount

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

func testPlan() Plan {
	root := "/home/al ice/code/it's \"ü\" $HOME `x`"
	return Build(Inputs{
		Home: "/home/al ice", StateDir: "/home/al ice/.claudebox",
		Project: instance.Project{Root: root, Checkout: root},
		Cwd:     root + "/sub dir",
		Host:    Host{System: []HostPath{{Path: "/usr"}, {Path: "/bin", Link: "usr/bin"}}},
		Env:     []string{"HOME", "ANTHROPIC_API_KEY"},
		Network: true,
		Command: []string{"/usr/bin/claude", "-p", "it's; rm -rf ~", "--model", "opus"},
		Claude:  true,
	})
}

// The script --dry-run prints, run by a shell, passes bwrap exactly Args.
func TestScriptIsArgs(t *testing.T) {
	p := testPlan()
	script := p.Script("/usr/bin/bwrap")
	first, rest, _ := strings.Cut(script, "\n")
	if first != `env -i HOME="$HOME" ANTHROPIC_API_KEY="$ANTHROPIC_API_KEY" \` {
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
		"--bind\n/home/al ice/.claude\n/home/al ice/.claude\n",
		"\n/home/al ice/.claude/projects\n",
		"\n/home/al ice/.claude/history.jsonl\n",
		"\n/home/al ice/.claude.json\n",
		"--chdir\n",
		"\n--\n/usr/bin/claude\n--append-system-prompt-file\n/home/al ice/.claude/projects/SANDBOX.md\n-p\n",
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

func TestEnvironment(t *testing.T) {
	environ := []string{"HOME=/h", "PATH=/bin", "SECRET=x", "LC_ALL=C", "ANTHROPIC_API_KEY=k", "GITHUB_TOKEN=t", "MINE=1"}
	got, err := Environment(environ, []string{"MINE", "MINE"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"HOME", "PATH", "ANTHROPIC_API_KEY", "LC_ALL", "MINE"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Environment = %q, want %q", got, want)
	}
	for _, bad := range []string{"NOPE", "1X", "A=B", ""} {
		if _, err := Environment(environ, []string{bad}); err == nil {
			t.Errorf("--env %q accepted", bad)
		}
	}
}

// The host mount points are exactly the overlays inside the real ~/.claude;
// those inside the instance bind are claudebox's own.
func TestHostMountPoints(t *testing.T) {
	in := Inputs{
		Home: "/h", StateDir: "/h/.claudebox",
		Project: instance.Project{Root: "/h/p", Checkout: "/h/p"},
		Cwd:     "/h/p",
		Host:    Host{System: []HostPath{{Path: "/usr"}}, GitConfig: []string{"/h/.gitconfig"}},
		Command: []string{"/usr/bin/claude"}, Claude: true,
	}
	dests := func(p Plan) []string {
		var d []string
		for _, m := range p.HostMountPoints() {
			d = append(d, m.Dest)
		}
		return d
	}
	if got, want := dests(Build(in)), []string{"/h/.claude/projects", "/h/.claude/history.jsonl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("HostMountPoints = %q, want %q", got, want)
	}
	in.Host.SandboxMDOnHost, in.Host.SandboxLogin, in.Host.LoginOnHost = true, true, true
	if got, want := dests(Build(in)), []string{"/h/.claude/projects", "/h/.claude/history.jsonl", "/h/.claude/SANDBOX.md", "/h/.claude/.credentials.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("HostMountPoints = %q, want %q", got, want)
	}
}
