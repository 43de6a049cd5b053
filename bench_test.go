package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/session"
)

// benchRepo makes a repository with a linked worktree and chdirs into a
// subdirectory of the worktree: the deepest walk Resolve does.
func benchRepo(b *testing.B) {
	b.Helper()
	base, _ := filepath.EvalSymlinks(b.TempDir())
	repo := filepath.Join(base, "repo")
	home := filepath.Join(base, "home")
	for _, d := range []string{repo, home} {
		os.MkdirAll(d, 0o755)
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "c"}, {"worktree", "add", "-q", "-b", "wt", "../wt"}} {
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
		c.Dir = repo
		if out, err := c.CombinedOutput(); err != nil {
			b.Skipf("git: %v %s", err, out)
		}
	}
	sub := filepath.Join(base, "wt", "a", "b")
	os.MkdirAll(sub, 0o755)
	wd, _ := os.Getwd()
	os.Chdir(sub)
	b.Cleanup(func() { os.Chdir(wd) })
	b.Setenv("HOME", home)
}

// BenchmarkPrepare is claudebox's own work before exec: root, hash, host
// probe, plan and argv.
func BenchmarkPrepare(b *testing.B) {
	benchRepo(b)
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bwrap not installed")
	}
	if _, err := exec.LookPath("claude"); err != nil {
		b.Skip("claude not installed")
	}
	benchPrepare(b)
}

// BenchmarkPrepareHomeBind adds the heaviest extra mount a bind may still
// be (one of the home itself is refused): a directory holding 40 entries,
// one of them another bind's destination, laid out entry by entry, beside
// a home of secrets every bind is checked against, and a config file.
func BenchmarkPrepareHomeBind(b *testing.B) {
	benchRepo(b)
	if _, err := exec.LookPath("claude"); err != nil {
		b.Skip("claude not installed")
	}
	home := os.Getenv("HOME")
	for i := range 40 {
		os.MkdirAll(filepath.Join(home, "work", fmt.Sprintf("dir%02d", i)), 0o755)
	}
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".config/nvim", ".cargo/registry", ".config/claudebox"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".config/claudebox/config.toml"), []byte("ro-bind = [\"~/work\"]\nbind = [\"~/.cargo/registry:~/work/dir00\"]\nenv = [\"A=1\"]\n"), 0o644)
	benchPrepare(b)
}

// BenchmarkPrepareToolchains adds a developer's PATH: nvm, rustup's 20
// proxies, pyenv's shims and 50 pipx tools in ~/.local/bin, each a link to
// a venv whose script names its python on its #! line.
func BenchmarkPrepareToolchains(b *testing.B) {
	benchRepo(b)
	if _, err := exec.LookPath("claude"); err != nil {
		b.Skip("claude not installed")
	}
	home := os.Getenv("HOME")
	write := func(p, content string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o755)
	}
	write(filepath.Join(home, ".nvm/versions/node/v20/bin/node"), "\x7fELF")
	os.MkdirAll(filepath.Join(home, ".rustup/toolchains/stable/bin"), 0o755)
	for i := range 20 {
		write(filepath.Join(home, fmt.Sprintf(".cargo/bin/proxy%02d", i)), "\x7fELF")
		write(filepath.Join(home, fmt.Sprintf(".pyenv/shims/shim%02d", i)), "#!/usr/bin/env bash\n")
	}
	for i := range 50 {
		venv := filepath.Join(home, fmt.Sprintf(".local/share/pipx/venvs/tool%02d", i))
		write(filepath.Join(venv, "bin/tool"), "#!"+venv+"/bin/python\n")
		write(filepath.Join(venv, "bin/python"), "\x7fELF")
		os.MkdirAll(filepath.Join(home, ".local/bin"), 0o755)
		os.Symlink(filepath.Join(venv, "bin/tool"), filepath.Join(home, fmt.Sprintf(".local/bin/tool%02d", i)))
	}
	var path []string
	for _, d := range []string{".nvm/versions/node/v20/bin", ".cargo/bin", ".pyenv/shims", ".local/bin"} {
		path = append(path, filepath.Join(home, d))
	}
	b.Setenv("PATH", strings.Join(append(path, os.Getenv("PATH")), ":"))
	benchPrepare(b)
}

func benchPrepare(b *testing.B) {
	// The benchmark's fresh home has no login; a key stands in for one.
	b.Setenv("ANTHROPIC_API_KEY", "sk-bench")
	home, err := session.FindHome()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s, err := session.Prepare(session.Options{Home: home, Args: []string{"-p", "hi"}, ReadMounts: readMounts})
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Plan().Args()
	}
}

// BenchmarkGitRevParse is what spawning git for the root would cost.
func BenchmarkGitRevParse(b *testing.B) {
	benchRepo(b)
	for b.Loop() {
		if err := exec.Command("git", "rev-parse", "--git-common-dir").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// launchBin makes a PATH where claudebox is this test binary and bwrap and
// claude are true: a launch then costs claudebox's own work, the spawn of
// its child and the wait for it.
func launchBin(b *testing.B) string {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	bin := b.TempDir()
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	for name, target := range map[string]string{"claudebox": self, "bwrap": truePath, "claude": truePath} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			b.Fatal(err)
		}
	}
	return bin
}

// BenchmarkLaunchProcess is a whole launch as a process, with bwrap
// replaced by true; BenchmarkBareExec, beside it, is what running true
// costs without claudebox.
func BenchmarkLaunchProcess(b *testing.B) {
	benchRepo(b)
	bin := launchBin(b)
	b.Setenv("PATH", bin+":/usr/bin:/bin")
	for b.Loop() {
		if out, err := exec.Command(filepath.Join(bin, "claudebox"), "-p", "hi").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

func BenchmarkBareExec(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSupervisorIdle runs a real session that sleeps and reports what
// its supervisor and its guard watcher use while the session idles (past
// its first second, after which both give back what their start used):
// resident memory (RSS counts the pages of claudebox's binary the two
// share in each; PSS divides them between them), and the CPU time they
// spend between two samples 0.6 s apart.
func BenchmarkSupervisorIdle(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("bwrap not installed")
	}
	bin := launchBin(b)
	os.Remove(filepath.Join(bin, "claudebox"))
	buildClaudebox(b, filepath.Join(bin, "claudebox"))
	os.Remove(filepath.Join(bin, "bwrap"))
	benchRepo(b)
	b.Setenv("PATH", bin+":/usr/bin:/bin")
	var rssKB, pssKB, watcherRSSKB, watcherPSSKB, idleTicks, watcherTicks float64
	for b.Loop() {
		c := exec.Command(filepath.Join(bin, "claudebox"), "--shell", "-c", "sleep 2.6")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		watcher := childRunning(c.Process.Pid, "--watch-guards")
		before, watcherBefore := cpuTicks(c.Process.Pid), cpuTicks(watcher)
		time.Sleep(600 * time.Millisecond)
		idleTicks = float64(cpuTicks(c.Process.Pid) - before)
		watcherTicks = float64(cpuTicks(watcher) - watcherBefore)
		rssKB, pssKB = memoryKB(c.Process.Pid)
		watcherRSSKB, watcherPSSKB = memoryKB(watcher)
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(rssKB, "RSS-KB")
	b.ReportMetric(pssKB, "PSS-KB")
	b.ReportMetric(watcherRSSKB, "watcher-RSS-KB")
	b.ReportMetric(watcherPSSKB, "watcher-PSS-KB")
	b.ReportMetric(idleTicks, "idle-CPU-ticks")
	b.ReportMetric(watcherTicks, "watcher-idle-CPU-ticks")
}

// childRunning is the child of pid whose command line holds arg (0 if
// none).
func childRunning(pid int, arg string) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			var child int
			fmt.Sscan(f, &child)
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child)); strings.Contains(string(cmd), arg) {
				return child
			}
		}
	}
	return 0
}

// memoryKB is a process's resident and proportional set sizes.
func memoryKB(pid int) (rss, pss float64) {
	rollup, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, line := range strings.Split(string(rollup), "\n") {
		if v, ok := strings.CutPrefix(line, "Rss:"); ok {
			fmt.Sscan(v, &rss)
		}
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			fmt.Sscan(v, &pss)
		}
	}
	return rss, pss
}

// cpuTicks is a process's user and system time, in clock ticks.
func cpuTicks(pid int) int {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	_, rest, _ := strings.Cut(string(stat), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0
	}
	var u, s int
	fmt.Sscan(fields[11], &u)
	fmt.Sscan(fields[12], &s)
	return u + s
}

// BenchmarkPrepareFolderOfRepos starts in a folder of 30 repositories,
// each with 10 directories of 10 directories (a ~/code): the probe reads
// every directory down to mount's nestedDepth and guards each repository.
func BenchmarkPrepareFolderOfRepos(b *testing.B) {
	if _, err := exec.LookPath("claude"); err != nil {
		b.Skip("claude not installed")
	}
	base, _ := filepath.EvalSymlinks(b.TempDir())
	home := filepath.Join(base, "home")
	code := filepath.Join(base, "code")
	for i := range 30 {
		repo := filepath.Join(code, fmt.Sprintf("repo%02d", i))
		for j := range 10 {
			for k := range 10 {
				os.MkdirAll(filepath.Join(repo, fmt.Sprintf("d%d", j), fmt.Sprintf("e%d", k)), 0o755)
			}
		}
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			b.Skipf("git: %v %s", err, out)
		}
	}
	os.MkdirAll(home, 0o755)
	wd, _ := os.Getwd()
	os.Chdir(code)
	b.Cleanup(func() { os.Chdir(wd) })
	b.Setenv("HOME", home)
	benchPrepare(b)
}

// BenchmarkBwrapFailure: a launch whose bwrap fails at once, to the hint.
func BenchmarkBwrapFailure(b *testing.B) {
	h, proj := failingBwrapHost(b, true)
	for b.Loop() {
		if h.command(proj, nil, "claudebox", "--shell", "-c", "true").Run() == nil {
			b.Fatal("the launch succeeded")
		}
	}
}

// BenchmarkGoBuildSession is a `go build` of a small program (net/http, so
// a few hundred packages of the standard library) in a new session, as
// the user runs it: cold, with the project's caches emptied (every session
// before they were kept); warm, the caches kept from the session before;
// and on the host with its own warm cache, the mark to meet; empty is a
// session that runs nothing, what warm pays beyond the build. Each build
// links a new binary, as a session's does (its /tmp is new): go build
// does not cache what it links, and a host build whose output is already
// up to date skips the link (about 0.6 s of the 0.7 s here), which made
// the host look four times faster than it is.
func BenchmarkGoBuildSession(b *testing.B) {
	goDir := filepath.Dir(requireTool(b, "go", "install Go"))
	h := newE2EHost(b)
	proj := filepath.Join(h.home, "code", "hello")
	h.gitRepo(proj)
	h.write(filepath.Join(proj, "go.mod"), "module example.com/hello\n\ngo 1.22\n")
	h.write(filepath.Join(proj, "main.go"), "package main\n\nimport \"net/http\"\n\nfunc main() { http.ListenAndServe(\":0\", nil) }\n")
	env := []string{"PATH=" + h.bin + ":" + goDir + ":/usr/bin:/bin", "GOTOOLCHAIN=local"}
	build := []string{"--shell", "-c", "go build -o /tmp/hello ."}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			h.run(h.home, env, "claudebox", "--gc", "--caches")
			b.StartTimer()
			h.run(proj, env, "claudebox", build...)
		}
	})
	b.Run("warm", func(b *testing.B) {
		h.run(proj, env, "claudebox", build...)
		for b.Loop() {
			h.run(proj, env, "claudebox", build...)
		}
	})
	b.Run("empty", func(b *testing.B) {
		for b.Loop() {
			h.run(proj, env, "claudebox", "--shell", "-c", "true")
		}
	})
	b.Run("host", func(b *testing.B) {
		out := filepath.Join(h.base, "hello")
		h.run(proj, env, "go", "build", "-o", out, ".")
		for b.Loop() {
			b.StopTimer()
			os.Remove(out)
			b.StartTimer()
			h.run(proj, env, "go", "build", "-o", out, ".")
		}
	})
}
