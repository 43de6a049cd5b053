package living

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
)

// TestResumeNamesClaudebox: after a session of the real Claude Code,
// claudebox names the command that resumes it, and that command does.
func TestResumeNamesClaudebox(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-resume")
	env := api.Env("sk-ant-test-key")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, env, "claudebox", "-p", "hello")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-resume") {
		t.Fatalf("claudebox -p hello: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	m := regexp.MustCompile(`(?m)^claudebox: resume this session with: claudebox --resume ([0-9a-f-]+)$`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("claudebox said no way to resume the session:\n%s", stderr.String())
	}
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	if found, _ := filepath.Glob(filepath.Join(inst, "*", m[1]+".jsonl")); len(found) != 1 {
		t.Fatalf("claudebox named session %s; the instance holds no transcript of it", m[1])
	}
	if out := h.Run(proj, env, "claudebox", "--resume", m[1], "-p", "again"); !strings.Contains(out, "FAKE-REPLY-resume") {
		t.Errorf("claudebox --resume %s -p again printed %q", m[1], out)
	}
	// A shell session has nothing to resume.
	stderr.Reset()
	c = h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
	c.Stderr = &stderr
	if err := c.Run(); err != nil || strings.Contains(stderr.String(), "resume") {
		t.Errorf("claudebox --shell: %v, said %q", err, stderr.String())
	}
}

// TestNoNetworkSaysClaudeCannotAnswer: --no-network without --shell says
// at launch, in one line, that Claude cannot reach its API.
func TestNoNetworkSaysClaudeCannotAnswer(t *testing.T) {
	h := harness.NewHost(t)
	claude := filepath.Join(h.Home, ".local", "bin", "claude")
	h.Write(claude, "#!/bin/sh\necho stub-claude-ran\n")
	os.Chmod(claude, 0o755)
	proj := filepath.Join(h.Home, "p")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Dir(claude) + ":" + h.Bin + ":/usr/bin:/bin"
	for _, args := range [][]string{{"--no-network", "-p", "hi"}, {"--no-network", "--shell", "-c", "true"}, {"-p", "hi"}} {
		var stderr bytes.Buffer
		c := h.Command(proj, []string{path, "ANTHROPIC_API_KEY=sk-ant-test"}, "claudebox", args...)
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("claudebox %q: %v\n%s", args, err, stderr.String())
		}
		said := strings.Count(stderr.String(), "Claude cannot reach its API")
		if want := map[bool]int{true: 1, false: 0}[args[0] == "--no-network" && args[1] != "--shell"]; said != want {
			t.Errorf("claudebox %q said it %d times, want %d:\n%s", args, said, want, stderr.String())
		}
	}
}

// TestHomeSymlink: with HOME a symlink (the home itself, or a directory
// above it), given unresolved or resolved, the real claude answers and
// its transcript lands in the instance.
func TestHomeSymlink(t *testing.T) {
	for _, tc := range []struct{ name, link, target string }{
		{"home", "home/link", "home/alice"},
		{"above", "homes", "home"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			harness.RequireClaude(t)
			// The real one, as the user's PATH finds it.
			claude, err := filepath.EvalSymlinks(strings.TrimSpace(h.Run(h.Base, nil, "sh", "-c", "command -v claude")))
			if err != nil {
				t.Fatal(err)
			}
			api := harness.StartFakeAPI(t, "FAKE-REPLY-symlinked")
			// Where the native installer puts claude, on PATH through $HOME:
			// ~/.local/bin/claude -> ../share/claude/versions/<version>.
			os.MkdirAll(filepath.Join(h.Home, ".local", "bin"), 0o755)
			os.MkdirAll(filepath.Join(h.Home, ".local", "share", "claude", "versions"), 0o755)
			if err := os.Symlink(claude, filepath.Join(h.Home, ".local", "share", "claude", "versions", "2.1.330")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../share/claude/versions/2.1.330", filepath.Join(h.Home, ".local", "bin", "claude")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(h.Base, tc.target), filepath.Join(h.Base, tc.link)); err != nil {
				t.Fatal(err)
			}
			h.Chown()
			linked := filepath.Join(h.Base, tc.link, strings.TrimPrefix(h.Home, filepath.Join(h.Base, tc.target)))
			proj := filepath.Join(h.Home, "code", "proj")
			h.Write(filepath.Join(proj, "x"), "x\n")
			for i, home := range []string{linked, h.Home} {
				for j, dir := range []string{filepath.Join(linked, "code", "proj"), proj} {
					env := append(api.Env("sk-ant-test-key"), "HOME="+home, "PATH="+filepath.Join(home, ".local", "bin")+":"+h.Bin+":/usr/bin:/bin")
					out := h.Run(dir, env, "claudebox", "-p", "hello")
					if !strings.Contains(out, "FAKE-REPLY-symlinked") {
						t.Fatalf("HOME=%s, in %s: printed %q", home, dir, out)
					}
					inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
					if found, _ := filepath.Glob(filepath.Join(inst, "*", "*.jsonl")); len(found) != 1+2*i+j {
						t.Fatalf("HOME=%s, in %s: the instance holds %d transcripts, want %d", home, dir, len(found), 1+2*i+j)
					}
				}
			}
		})
	}
}

// TestBwrapFailureSaysWhy: when bwrap fails, its own message is shown with
// the hint for it, and nothing about a sandbox that never began.
//
// Its child gone before claudebox looked at it (at once: fast, or on a
// loaded machine, where CI saw it), claudebox killed bwrap as one whose
// sandbox it could not watch, and ended with 137 and no word of why.
func TestBwrapFailureSaysWhy(t *testing.T) {
	for _, fast := range []bool{false, true} {
		h, proj := harness.FailingBwrapHost(t, fast)
		var stderr bytes.Buffer
		c := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
		c.Stderr = &stderr
		err := c.Run()
		want := "bwrap: Can't mkdir parents for /home/dev/.local/bin/claude: No such file or directory\n" +
			"claudebox: bwrap could not make the sandbox\n" +
			"hint: " + "bwrap's message above names the path it could not make; claudebox --dry-run shows where the plan mounts it (a missing or symlinked directory on the way is the usual cause)\n"
		if err == nil || stderr.String() != want {
			t.Errorf("claudebox with a failing bwrap (fast %v): %v, said:\n%s\nwant:\n%s", fast, err, stderr.String(), want)
		}
	}
}
