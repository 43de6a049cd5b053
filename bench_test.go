package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
