package mount

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitWrapperArgs runs the wrapper with a stand-in git that logs its
// calls: a subcommand that rewrites the work tree is run between two
// looks at the protected paths, after any global options, and, in the
// project's own repository, after a look at what it would change (here
// "top": the stand-in is no repository, so no further look); any other is
// one exec, with arguments and exit status as given.
func TestGitWrapperArgs(t *testing.T) {
	dir := t.TempDir()
	wrapperDir, realDir := filepath.Join(dir, "wrapper"), filepath.Join(dir, "real")
	for _, d := range []string{wrapperDir, realDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "log")
	script := gitWrapper("/p", []Guard{{Path: "/p/.envrc"}, {Path: "/p/.git/hooks"}, {Path: "/elsewhere/.bashrc"}})
	if !strings.Contains(script, "protected() { differing '.envrc'; }") {
		t.Errorf("protected paths are not just the work tree's:\n%s", script)
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wrapperDir, "git"), script)
	write(filepath.Join(realDir, "git"), "#!/bin/sh\necho \"$*\" >>"+log+"\nexit 3\n")
	for _, c := range []struct {
		args  []string
		calls []string
	}{
		{[]string{"status", "--porcelain"}, []string{"status --porcelain"}},
		{[]string{"-C", "checkout", "status"}, []string{"-C checkout status"}},
		{[]string{"-c", "a=b", "--no-pager", "log"}, []string{"-c a=b --no-pager log"}},
		{[]string{"--git-dir=x", "checkout", "other"}, []string{"diff", "--git-dir=x checkout other", "diff"}},
		{[]string{"-C", "d", "-c", "k=v", "switch", "-"}, []string{"diff", "-C d -c k=v switch -", "diff"}},
		{[]string{"pull"}, []string{"top", "diff", "pull", "diff"}},
		{[]string{"reset", "HEAD~"}, []string{"reset HEAD~"}},
		{[]string{"reset", "--hard", "HEAD~"}, []string{"top", "diff", "reset --hard HEAD~", "diff"}},
		{[]string{"restore", "--staged", ".envrc"}, []string{"restore --staged .envrc"}},
		{[]string{"restore", "-S", "-W", ".envrc"}, []string{"top", "diff", "restore -S -W .envrc", "diff"}},
		{[]string{"restore", ".envrc"}, []string{"top", "diff", "restore .envrc", "diff"}},
		{[]string{}, []string{""}},
	} {
		os.Remove(log)
		cmd := exec.Command(filepath.Join(wrapperDir, "git"), c.args...)
		cmd.Env = []string{"PATH=" + wrapperDir + ":" + realDir}
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("git %q: %v, want exit status 3", c.args, err)
		}
		b, _ := os.ReadFile(log)
		calls := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		for i := range calls {
			if strings.HasPrefix(calls[i], "--no-optional-locks -C /p diff --name-only -- .envrc") {
				calls[i] = "diff"
			}
			if calls[i] == "rev-parse --show-toplevel" {
				calls[i] = "top"
			}
		}
		if strings.Join(calls, "|") != strings.Join(c.calls, "|") {
			t.Errorf("git %q called %q, want %q", c.args, calls, c.calls)
		}
	}
	// The wrapper never runs itself, wherever PATH lists it.
	cmd := exec.Command(filepath.Join(wrapperDir, "git"), "status")
	cmd.Env = []string{"PATH=" + wrapperDir + ":" + wrapperDir + "/"}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || string(out) != "claudebox: git is not on PATH\n" {
		t.Errorf("with only itself on PATH: %v, %q", err, out)
	}
}

// TestGitWrapperNone: with no protected path in the work tree there is no
// wrapper (else every checkout would compare the whole tree).
func TestGitWrapperNone(t *testing.T) {
	if s := gitWrapper("/p", []Guard{{Path: "/p/.git/config"}, {Path: "/h/.bashrc"}}); s != "" {
		t.Errorf("a wrapper with nothing to protect:\n%s", s)
	}
}

// BenchmarkGitWrapperStatus is the wrapper's cost on git status, the
// command Claude Code runs most, against the real git's alone.
func BenchmarkGitWrapperStatus(b *testing.B) {
	real, err := exec.LookPath("git")
	if err != nil {
		b.Skip("no git")
	}
	dir := b.TempDir()
	if out, err := exec.Command(real, "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	wrapper := filepath.Join(dir, ".wrapper", "git")
	if err := os.MkdirAll(filepath.Dir(wrapper), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(wrapper, []byte(gitWrapper(dir, []Guard{{Path: filepath.Join(dir, ".envrc")}})), 0o755); err != nil {
		b.Fatal(err)
	}
	for name, git := range map[string]string{"real": real, "wrapper": wrapper} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(git, "status", "--porcelain")
				cmd.Dir = dir
				cmd.Env = []string{"PATH=" + filepath.Dir(wrapper) + ":" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}
