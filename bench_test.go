package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// BenchmarkPrepareFolderOfRepos starts in a folder of 30 repositories,
// each with 10 directories of 10 directories (a ~/code): the probe reads
// every directory down to NestedDepth and guards each repository.
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
