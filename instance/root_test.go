package instance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitFormula is the bash claudebox's root: dirname(realpath(git-common-dir)).
func gitFormula(t *testing.T, dir string) string {
	common := git(t, dir, "rev-parse", "--git-common-dir")
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	real, err := filepath.EvalSymlinks(common)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(real)
}

func commit(t *testing.T, dir string) {
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	git(t, dir, "add", "f")
	git(t, dir, "commit", "-qm", "c")
}

func TestResolveMatchesGitFormula(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(base, "my repo ü")
	os.MkdirAll(filepath.Join(repo, "sub", "deep"), 0o755)
	git(t, repo, "init", "-q")
	commit(t, repo)
	wt := filepath.Join(base, "wt space")
	git(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	os.MkdirAll(filepath.Join(wt, "inner"), 0o755)
	link := filepath.Join(base, "link")
	os.Symlink(repo, link)

	for _, dir := range []string{repo, filepath.Join(repo, "sub", "deep"), wt, filepath.Join(wt, "inner"), filepath.Join(link, "sub")} {
		p, err := Resolve(dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := gitFormula(t, dir); p.Root != want {
			t.Errorf("Resolve(%q).Root = %q, git formula gives %q", dir, p.Root, want)
		}
	}
	p, _ := Resolve(filepath.Join(wt, "inner"))
	if p.Checkout != wt || len(p.GitDirs) != 1 || p.GitDirs[0] != filepath.Join(repo, ".git") {
		t.Errorf("worktree: Checkout %q GitDirs %q", p.Checkout, p.GitDirs)
	}
}

func TestResolveWhereTheFormulaIsWrong(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())

	// Each submodule is its own project.
	lib := filepath.Join(base, "lib")
	os.MkdirAll(lib, 0o755)
	git(t, lib, "init", "-q")
	commit(t, lib)
	super := filepath.Join(base, "super")
	os.MkdirAll(super, 0o755)
	git(t, super, "init", "-q")
	commit(t, super)
	git(t, super, "submodule", "add", "-q", lib, "a")
	git(t, super, "submodule", "add", "-q", lib, "b")
	for _, sub := range []string{"a", "b"} {
		dir := filepath.Join(super, sub)
		p, err := Resolve(dir)
		if err != nil || p.Root != dir {
			t.Errorf("submodule %s: Root %q err %v, want %q", sub, p.Root, err, dir)
		}
	}

	// A bare repository's linked worktrees are keyed by the bare repository.
	bare := filepath.Join(base, "proj.git")
	git(t, base, "clone", "-q", "--bare", lib, bare)
	wt := filepath.Join(base, "proj-main")
	git(t, bare, "worktree", "add", "-q", "-b", "feature", wt)
	if p, err := Resolve(wt); err != nil || p.Root != bare {
		t.Errorf("bare worktree: Root %q err %v, want %q", p.Root, err, bare)
	}

	// Outside git, the directory itself.
	plain := filepath.Join(base, "plain")
	os.MkdirAll(plain, 0o755)
	if p, _ := Resolve(plain); p.Root != plain || p.Checkout != plain || p.GitDirs != nil {
		t.Errorf("plain dir: %+v", p)
	}
}

func TestHash(t *testing.T) {
	// printf '%s' /home/user/code/myproject | sha256sum | cut -c1-16
	if got, want := Hash("/home/user/code/myproject"), "c51ac66bf1dca094"; got != want {
		t.Fatalf("Hash = %q, want %q", got, want)
	}
}

// TestResolveRefusesRedirects plants, in a project the sandbox can write,
// each redirect git would follow to somewhere else: Resolve must refuse it
// (never answering with another project's root), quickly, without reading a
// FIFO or looping.
func TestResolveRefusesRedirects(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	newRepo := func(name string) string {
		dir := filepath.Join(base, name)
		os.MkdirAll(dir, 0o755)
		git(t, dir, "init", "-q")
		commit(t, dir)
		return dir
	}
	other := newRepo("other")
	plugin := filepath.Join(base, "home", ".claude", "plugins", "marketplaces", "x")
	os.MkdirAll(plugin, 0o755)
	git(t, plugin, "init", "-q")
	commit(t, plugin)
	git(t, other, "worktree", "add", "-q", "-b", "o", filepath.Join(base, "other-wt"))

	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// lookalike makes a directory git takes for a repository, whose config
	// would run a command on the host.
	lookalike := func(dir string) {
		for _, d := range []string{"objects", "refs"} {
			os.MkdirAll(filepath.Join(dir, d), 0o755)
		}
		write(filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n")
		write(filepath.Join(dir, "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n")
	}
	cases := []struct {
		name  string
		plant func(repo string) string // returns the directory to resolve
	}{
		{"commondir to another repository", func(repo string) string {
			write(filepath.Join(repo, ".git", "commondir"), filepath.Join(other, ".git")+"\n")
			return repo
		}},
		{"commondir to a directory inside the project", func(repo string) string {
			lookalike(filepath.Join(repo, "build", "fake"))
			write(filepath.Join(repo, ".git", "commondir"), "../build/fake\n")
			return repo
		}},
		{"commondir to a plugin's .git", func(repo string) string {
			write(filepath.Join(repo, ".git", "commondir"), filepath.Join(plugin, ".git")+"\n")
			return filepath.Join(repo, "sub")
		}},
		{"commondir a FIFO", func(repo string) string {
			if err := unix.Mkfifo(filepath.Join(repo, ".git", "commondir"), 0o644); err != nil {
				t.Fatal(err)
			}
			return repo
		}},
		{"commondir a symlink loop", func(repo string) string {
			os.Symlink("commondir", filepath.Join(repo, ".git", "commondir"))
			return repo
		}},
		{"commondir to a symlink loop", func(repo string) string {
			os.Symlink("loop", filepath.Join(repo, "loop"))
			write(filepath.Join(repo, ".git", "commondir"), "../loop\n")
			return repo
		}},
		{"commondir huge", func(repo string) string {
			f, _ := os.Create(filepath.Join(repo, ".git", "commondir"))
			f.Truncate(1 << 40)
			f.Close()
			return repo
		}},
		{"gitfile in a subdirectory to another repository", func(repo string) string {
			write(filepath.Join(repo, "sub", ".git"), "gitdir: "+filepath.Join(other, ".git")+"\n")
			return filepath.Join(repo, "sub")
		}},
		{"gitfile to a plugin's .git", func(repo string) string {
			write(filepath.Join(repo, "sub", ".git"), "gitdir: "+filepath.Join(plugin, ".git")+"\n")
			return filepath.Join(repo, "sub")
		}},
		{"gitfile to another checkout's worktree", func(repo string) string {
			write(filepath.Join(repo, "sub", ".git"), "gitdir: "+filepath.Join(other, ".git", "worktrees", "other-wt")+"\n")
			return filepath.Join(repo, "sub")
		}},
		{"gitfile through a symlink to another repository", func(repo string) string {
			os.Symlink(filepath.Join(other, ".git"), filepath.Join(repo, "link"))
			write(filepath.Join(repo, "sub", ".git"), "gitdir: ../link\n")
			return filepath.Join(repo, "sub")
		}},
		{".git a symlink to another repository", func(repo string) string {
			os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
			os.Symlink(filepath.Join(other, ".git"), filepath.Join(repo, "sub", ".git"))
			return filepath.Join(repo, "sub")
		}},
		{"gitfile a FIFO", func(repo string) string {
			os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
			unix.Mkfifo(filepath.Join(repo, "sub", ".git"), 0o644)
			return filepath.Join(repo, "sub")
		}},
		{"a look-alike worktree inside the project pointing at another repository", func(repo string) string {
			wt := filepath.Join(repo, "fake", "worktrees", "w")
			write(filepath.Join(wt, "HEAD"), "ref: refs/heads/main\n")
			write(filepath.Join(wt, "gitdir"), filepath.Join(repo, "sub", ".git")+"\n")
			write(filepath.Join(wt, "commondir"), filepath.Join(other, ".git")+"\n")
			write(filepath.Join(repo, "sub", ".git"), "gitdir: "+wt+"\n")
			return filepath.Join(repo, "sub")
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := newRepo(fmt.Sprintf("repo%d", i))
			os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
			dir := c.plant(repo)
			done := make(chan struct{})
			var p Project
			var err error
			go func() { p, err = Resolve(dir); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Resolve hangs")
			}
			var redirect *RedirectError
			if !errors.As(err, &redirect) {
				t.Fatalf("Resolve(%s) = %+v, %v; want a refused redirect", dir, p, err)
			}
			if strings.ContainsAny(err.Error(), "\n") {
				t.Errorf("not one line: %q", err)
			}
		})
	}
}

// TestResolveAcceptsGitsOwnLayouts: the no-op commondir a session puts in a
// main repository and in a submodule's git dir changes nothing, a linked
// worktree whose gitdir names another checkout is refused, and a separate
// git dir is accepted once it names its checkout (core.worktree).
func TestResolveAcceptsGitsOwnLayouts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	lib := filepath.Join(base, "lib")
	os.MkdirAll(lib, 0o755)
	git(t, lib, "init", "-q")
	commit(t, lib)
	repo := filepath.Join(base, "repo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q")
	commit(t, repo)
	git(t, repo, "submodule", "add", "-q", lib, "lib")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, ".git", "modules", "lib")} {
		os.WriteFile(filepath.Join(d, "commondir"), []byte(".\n"), 0o444)
	}
	if p, err := Resolve(repo); err != nil || p.Root != repo || p.CommonDir != filepath.Join(repo, ".git") {
		t.Errorf("main repository with the no-op commondir: %+v, %v", p, err)
	}
	sub := filepath.Join(repo, "lib")
	if p, err := Resolve(sub); err != nil || p.Root != sub {
		t.Errorf("submodule with the no-op commondir: %+v, %v", p, err)
	}

	wt := filepath.Join(base, "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "w", wt)
	back := filepath.Join(repo, ".git", "worktrees", "wt", "gitdir")
	os.WriteFile(back, []byte(filepath.Join(base, "elsewhere", ".git")+"\n"), 0o644)
	var redirect *RedirectError
	if _, err := Resolve(wt); !errors.As(err, &redirect) {
		t.Errorf("worktree whose gitdir names another checkout: %v", err)
	}

	sep := filepath.Join(base, "sep")
	store := filepath.Join(base, "store.git")
	git(t, base, "init", "-q", "--separate-git-dir", store, sep)
	if _, err := Resolve(sep); !errors.As(err, &redirect) {
		t.Errorf("separate git dir without core.worktree: %v", err)
	}
	git(t, sep, "config", "core.worktree", sep)
	if p, err := Resolve(sep); err != nil || p.Root != sep || len(p.GitDirs) != 1 || p.GitDirs[0] != store {
		t.Errorf("separate git dir naming its checkout: %+v, %v", p, err)
	}
}
