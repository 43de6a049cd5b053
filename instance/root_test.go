package instance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
