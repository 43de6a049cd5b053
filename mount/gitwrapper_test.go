package mount

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestGitWrapperRefusesBeforeGit: a command that reaches the project's
// repository through -C, and git am's patches (named, or on standard
// input), used to run before any look, so that a checkout or a patch
// touching a protected path moved HEAD first and failed only after. Proof,
// with the real git and a writable .envrc (so that only the wrapper can
// stop it): each is refused with the message, HEAD and .envrc stay as they
// were, and an am of a patch touching nothing protected, on standard
// input, still applies.
func TestGitWrapperRefusesBeforeGit(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	env := []string{
		"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + filepath.Join(dir, "wrapper") + ":" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	run := func(git, dir, stdin string, args ...string) (string, error) {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(args ...string) string {
		out, err := run(real, proj, "", args...)
		if err != nil {
			t.Fatalf("git %q: %v %s", args, err, out)
		}
		return out
	}
	write := func(path, content string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "wrapper", "git"), gitWrapper(proj, []Guard{{Path: filepath.Join(proj, ".envrc")}}), 0o755)
	write(filepath.Join(proj, ".envrc"), "export A=1\n", 0o644)
	write(filepath.Join(proj, "sub", "f"), "f\n", 0o644)
	must("init", "-q", "-b", "main")
	must("add", ".")
	must("commit", "-q", "-m", "start")
	must("checkout", "-q", "-b", "other")
	write(filepath.Join(proj, ".envrc"), "export A=2\n", 0o644)
	must("commit", "-q", "-am", "envrc")
	envrcPatch := must("format-patch", "--stdout", "-1")
	must("checkout", "-q", "-b", "plain", "main")
	write(filepath.Join(proj, "plain.txt"), "plain\n", 0o644)
	must("add", "plain.txt")
	must("commit", "-q", "-m", "plain")
	plainPatch := must("format-patch", "--stdout", "-1")
	must("checkout", "-q", "main")
	write(filepath.Join(dir, "envrc.patch"), envrcPatch, 0o644)
	head := must("rev-parse", "HEAD")

	wrapper := filepath.Join(dir, "wrapper", "git")
	for _, c := range []struct {
		dir, stdin string
		args       []string
	}{
		{dir, "", []string{"-C", "proj", "checkout", "other"}},
		{filepath.Join(proj, "sub"), "", []string{"-C", "", "-C", "..", "checkout", "other"}},
		{dir, "", []string{"-C", proj, "merge", "other"}},
		{filepath.Join(proj, "sub"), "", []string{"am", "../../envrc.patch"}},
		{dir, "", []string{"-C", "proj", "am", "-3", filepath.Join(dir, "envrc.patch")}},
		{proj, envrcPatch, []string{"am"}},
	} {
		out, err := run(wrapper, c.dir, c.stdin, c.args...)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "would change .envrc, which this sandbox protects") {
			t.Errorf("git %q in %s: %v %q; want it refused", c.args, c.dir, err, out)
		}
		if got := must("rev-parse", "HEAD"); got != head {
			t.Errorf("git %q moved HEAD", c.args)
		}
		if st := must("status", "--porcelain"); st != "" {
			t.Errorf("after git %q, git status says %q", c.args, st)
		}
		run(real, proj, "", "am", "--abort") //nolint:errcheck // nothing in progress, as wanted
	}
	if out, err := run(wrapper, proj, plainPatch, "am"); err != nil {
		t.Errorf("git am of a plain patch: %v %s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "plain.txt")); err != nil || string(b) != "plain\n" {
		t.Errorf("the plain patch did not apply: %q %v", b, err)
	}
}

// TestGitWrapperCloneHidden: a clone that fails because its source, a
// local path, is not in the sandbox (outside the project nothing is
// unless the user brings it) says how to bring it; a remote source, a
// destination git removed, or a clone that worked, adds nothing.
func TestGitWrapperCloneHidden(t *testing.T) {
	dir := t.TempDir()
	wrapperDir, realDir := filepath.Join(dir, "wrapper"), filepath.Join(dir, "real")
	for _, d := range []string{wrapperDir, realDir, filepath.Join(dir, "there")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(wrapperDir, "git"), []byte(gitWrapper("/p", []Guard{{Path: "/p/.envrc"}})), 0o755); err != nil {
		t.Fatal(err)
	}
	// The stand-in fails every clone but one from "there", as git does
	// for a source it cannot read.
	real := "#!/bin/sh\nfor a; do [ \"$a\" = there ] && exit 0; done\necho \"fatal: repository does not exist\" >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(realDir, "git"), []byte(real), 0o755); err != nil {
		t.Fatal(err)
	}
	hint := func(src string) string {
		return "claudebox: git clone: " + src + " is not in this sandbox: outside the project, only what you bring is\n" +
			"hint: if it is on the host, start claudebox with --ro-bind " + src + "\n"
	}
	for _, c := range []struct {
		args []string
		said string
	}{
		{[]string{"clone", "/home/alice/src/lib"}, hint("/home/alice/src/lib")},
		{[]string{"clone", "-b", "main", "--depth=1", "../lib", "dest"}, hint(filepath.Join(dir, "../lib"))},
		{[]string{"-c", "x=y", "clone", "--origin", "up", "file:///srv/lib.git"}, hint("/srv/lib.git")},
		{[]string{"clone", "https://example.com/lib.git", "missing-dest"}, ""},
		{[]string{"clone", "git@example.com:lib.git"}, ""},
		{[]string{"clone", "there", "missing-dest"}, ""},
		{[]string{"clone", "--", "there"}, ""},
		{[]string{"-C", "elsewhere", "clone", "../lib"}, ""},
	} {
		cmd := exec.Command(filepath.Join(wrapperDir, "git"), c.args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + wrapperDir + ":" + realDir + ":/usr/bin:/bin"}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Run()
		said := strings.TrimPrefix(stderr.String(), "fatal: repository does not exist\n")
		if said != c.said {
			t.Errorf("git %q said %q, want %q", c.args, said, c.said)
		}
	}
}

// TestGitWrapperConfigUnwritable: a git config that could not write git's
// configuration (git's exit status 4: the file is read-only here) is told
// why in claudebox's words, without what it set; its exit status and
// output are git's own, and any other status says nothing more.
func TestGitWrapperConfigUnwritable(t *testing.T) {
	dir := t.TempDir()
	wrapperDir, realDir := filepath.Join(dir, "wrapper"), filepath.Join(dir, "real")
	for _, d := range []string{wrapperDir, realDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wrapperDir, "git"), gitWrapper("/p", []Guard{{Path: "/p/.envrc"}}))
	write(filepath.Join(realDir, "git"), "#!/bin/sh\necho \"git: $*\" >&2\nexit $STATUS\n")
	for _, status := range []int{4, 1, 0} {
		cmd := exec.Command(filepath.Join(wrapperDir, "git"), "-c", "a=b", "config", "core.fsmonitor", "evil")
		cmd.Env = []string{"PATH=" + wrapperDir + ":" + realDir, "STATUS=" + strconv.Itoa(status)}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != status {
			t.Errorf("status %d: exit status %d (%v)", status, got, err)
		}
		said := strings.Contains(stderr.String(), "claudebox: git could not write its configuration, which this sandbox protects")
		if said != (status == 4) || !strings.HasPrefix(stderr.String(), "git: -c a=b config core.fsmonitor evil\n") || strings.Count(stderr.String(), "evil") != 1 {
			t.Errorf("status %d: stderr %q", status, stderr.String())
		}
	}
}
