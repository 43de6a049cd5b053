package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// BenchmarkPrepareHomeBind adds the heaviest extra mount: the whole home
// read-only, holding 40 entries and secrets, laid out entry by entry, and a
// config file.
func BenchmarkPrepareHomeBind(b *testing.B) {
	benchRepo(b)
	if _, err := exec.LookPath("claude"); err != nil {
		b.Skip("claude not installed")
	}
	home := os.Getenv("HOME")
	for i := range 40 {
		os.MkdirAll(filepath.Join(home, fmt.Sprintf("dir%02d", i)), 0o755)
	}
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".config/nvim", ".cargo/registry", ".config/claudebox"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".config/claudebox/config.toml"), []byte("ro-bind = [\"~\"]\nbind = [\"~/.cargo/registry\"]\nenv = [\"A=1\"]\n"), 0o644)
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
	b.ResetTimer()
	for b.Loop() {
		s, err := launchCmd{Args: []string{"-p", "hi"}}.prepare()
		if err != nil {
			b.Fatal(err)
		}
		_ = s.plan.Args()
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
