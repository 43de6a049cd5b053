// Package instance maps a working directory to its project and keeps the
// per-project state directory under ~/.claudebox/projects.
package instance

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// Project is where a working directory belongs (project.Project).
type Project = project.Project

// Resolve finds the project of cwd, which must be absolute. It reads git's
// files directly instead of running git: the answer equals
// dirname(realpath(git rev-parse --git-common-dir)) for ordinary repositories
// and their linked worktrees, and differs where that formula is wrong
// (submodules and bare repositories). Outside git, the root is cwd itself.
//
// The sandbox can write the checkout and its git directory, so every
// redirect git follows is checked the way git's own worktree code checks
// it; one that leads elsewhere is a *RedirectError.
func Resolve(cwd string) (Project, error) {
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return Project{}, err
	}
	for d := dir; ; d = filepath.Dir(d) {
		p, ok, err := Repository(d)
		if err != nil || ok {
			return p, err
		}
		if d == "/" {
			return Project{Root: dir, Checkout: dir}, nil
		}
	}
}

// RedirectError is a .git file, commondir or gitdir file that leads
// somewhere git's own layout does not put it: another repository, another
// checkout, or nothing readable.
type RedirectError struct {
	path   string
	reason string
}

func (e *RedirectError) Error() string { return e.path + " " + e.reason }

// Repository reports the project whose working tree top is top, if top
// holds a .git directory or gitfile. A .git directory that is no repository is
// passed over, as git passes over it; a gitfile or commondir that leads
// elsewhere is an error, as it is for git.
func Repository(top string) (Project, bool, error) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return Project{}, false, nil
	}
	gitDir := dotgit
	switch {
	case fi.IsDir():
		// Not a repository (a session's stand-in, an empty directory): git
		// passes over it, and so does its commondir.
		if _, err := os.Stat(filepath.Join(dotgit, "HEAD")); err != nil {
			return Project{}, false, nil
		}
	case fi.Mode().IsRegular():
		target, err := gitfileTarget(dotgit)
		if err != nil {
			return Project{}, false, &RedirectError{dotgit, "is not a gitfile git can use: " + err.Error()}
		}
		if gitDir, err = filepath.EvalSymlinks(target); err != nil {
			return Project{}, false, &RedirectError{dotgit, "points to " + target + ", which cannot be reached"}
		}
	default:
		return Project{}, false, &RedirectError{dotgit, "is neither a directory nor a regular file (a symlink could lead anywhere)"}
	}
	common, err := commonDir(gitDir)
	if err != nil {
		return Project{}, false, err
	}
	if !isGitDir(gitDir, common) {
		if fi.IsDir() {
			return Project{}, false, nil
		}
		return Project{}, false, &RedirectError{dotgit, "points to " + gitDir + ", which is not a git directory"}
	}
	cfg, err := gitconfig.Read(filepath.Join(common, "config"))
	if err != nil {
		return Project{}, false, err
	}
	worktree := gitconfig.Last(cfg, "core.worktree")
	if !fi.IsDir() {
		if err := claimsCheckout(dotgit, gitDir, common, worktree); err != nil {
			return Project{}, false, err
		}
	}
	p := Project{Checkout: top, GitDir: gitDir, CommonDir: common}
	switch {
	case filepath.Base(common) == ".git":
		// Ordinary repository or one of its linked worktrees.
		p.Root = filepath.Dir(common)
	case gitconfig.Bool(cfg, "core.bare"):
		// A linked worktree of a bare repository: the bare repository is the
		// project, not the directory that holds it beside its siblings.
		p.Root = common
	case worktree != "":
		// A submodule: its git dir lives in the superproject's
		// .git/modules and core.worktree names its own checkout.
		if r, ok := coreWorktree(common, worktree); ok {
			p.Root = r
		} else {
			p.Root = top
		}
	default:
		// A separate git dir (git init --separate-git-dir): the checkout is
		// the project.
		p.Root = top
	}
	if !paths.Within(common, top) {
		p.GitDirs = append(p.GitDirs, common)
	}
	return p, true, nil
}

// commonDir follows gitDir's commondir file as git does, and accepts it only
// where git's worktree code writes one: in <common>/worktrees/<name>,
// leading to <common>. One leading to the git dir itself is a no-op (the
// stand-in a session puts where none exists).
func commonDir(gitDir string) (string, error) {
	path := filepath.Join(gitDir, "commondir")
	b, err := readWritable(path, maxPointer)
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", &RedirectError{path, "cannot be read safely: " + err.Error()}
	}
	c := strings.TrimRight(string(b), "\n")
	if c == "" {
		return "", &RedirectError{path, "is empty"}
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	real, err := filepath.EvalSymlinks(c)
	if err != nil {
		return "", &RedirectError{path, "leads to " + c + ", which cannot be reached"}
	}
	if real == gitDir {
		return gitDir, nil
	}
	if parent := filepath.Dir(gitDir); filepath.Base(parent) == "worktrees" && real == filepath.Dir(parent) {
		return real, nil
	}
	return "", &RedirectError{path, "leads to " + real + ", not to the repository holding " + gitDir}
}

// claimsCheckout checks that the git dir a gitfile leads to names that
// checkout back, as git's worktree code requires: a linked worktree's
// gitdir file, or core.worktree (worktree, from common's config) for a
// submodule or a separate git dir. Without it, a gitfile planted in the
// project could make claudebox bind another project's repository and use
// its instance.
func claimsCheckout(dotgit, gitDir, common, worktree string) error {
	want, _ := filepath.EvalSymlinks(dotgit)
	if gitDir != common {
		path := filepath.Join(gitDir, "gitdir")
		b, err := readWritable(path, maxPointer)
		if err != nil {
			return &RedirectError{path, "cannot be read safely: " + err.Error()}
		}
		back := strings.TrimRight(string(b), "\n")
		if !filepath.IsAbs(back) {
			back = filepath.Join(gitDir, back)
		}
		if real, err := filepath.EvalSymlinks(back); err != nil || real != want {
			return &RedirectError{dotgit, "points to the worktree " + gitDir + ", which belongs to " + back}
		}
		return nil
	}
	if r, ok := coreWorktree(gitDir, worktree); worktree == "" || !ok || r != filepath.Dir(want) {
		return &RedirectError{dotgit, "points to " + gitDir + ", a repository that does not name this checkout as its work tree (core.worktree)"}
	}
	return nil
}

// coreWorktree resolves a core.worktree value, relative to the git dir.
func coreWorktree(gitDir, wt string) (string, bool) {
	if !filepath.IsAbs(wt) {
		wt = filepath.Join(gitDir, wt)
	}
	r, err := filepath.EvalSymlinks(wt)
	return r, err == nil
}

// gitfileTarget returns the git dir a ".git" file points to.
func gitfileTarget(path string) (string, error) {
	b, err := readWritable(path, maxPointer)
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r"), "gitdir: ")
	if !ok || target == "" {
		return "", errors.New("no gitdir line")
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return target, nil
}

// maxPointer is the size limit of git's pointer files (gitfile, commondir,
// gitdir) as claudebox reads them: one path.
const maxPointer = 4096

// readWritable reads one of git's files where the sandbox may have written:
// a regular file only (a FIFO would block, a device never end), opened
// without following a symlink in its last component and without blocking,
// at most max bytes.
func readWritable(path string, max int64) ([]byte, error) {
	return untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), max)
}

// isGitDir mirrors git's own test of a repository directory: HEAD in the git
// dir, objects and refs in the common dir.
func isGitDir(gitDir, common string) bool {
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
