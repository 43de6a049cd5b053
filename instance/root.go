// Package instance maps a working directory to its project and keeps the
// per-project state directory under ~/.claudebox/projects.
package instance

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// Project is where a working directory belongs.
type Project struct {
	// Root is the canonical project root: the instance is keyed by it.
	Root string
	// Checkout is the top of the working tree that holds the working
	// directory: the directory the sandbox binds read-write.
	Checkout string
	// GitDirs are git directories outside Checkout that git needs inside
	// the sandbox (the main repository's common dir, for a linked worktree).
	GitDirs []string
	// GitDir is the checkout's own git directory and CommonDir the
	// repository's shared one (equal but for linked worktrees); both are
	// empty outside git.
	GitDir, CommonDir string
}

// Resolve finds the project of cwd, which must be absolute. It reads git's
// files directly instead of running git: the answer equals
// dirname(realpath(git rev-parse --git-common-dir)) for ordinary repositories
// and their linked worktrees, and differs where that formula is wrong
// (submodules and bare repositories). Outside git, the root is cwd itself.
func Resolve(cwd string) (Project, error) {
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return Project{}, err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if p, ok := atGitEntry(d); ok {
			return p, nil
		}
		if d == "/" {
			return Project{Root: dir, Checkout: dir}, nil
		}
	}
}

// atGitEntry reports the project whose working tree top is top, if top holds
// a valid .git directory or gitfile.
func atGitEntry(top string) (Project, bool) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return Project{}, false
	}
	gitDir := dotgit
	if !fi.IsDir() {
		gitDir, err = readGitfile(dotgit)
		if err != nil {
			return Project{}, false
		}
	}
	gitDir, err = filepath.EvalSymlinks(gitDir)
	if err != nil {
		return Project{}, false
	}
	common := gitDir
	if b, err := readGitFile(filepath.Join(gitDir, "commondir"), gitPathLimit); err == nil {
		c := strings.TrimRight(string(b), "\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		if common, err = filepath.EvalSymlinks(c); err != nil {
			return Project{}, false
		}
	}
	if !isGitDir(gitDir, common) {
		return Project{}, false
	}
	p := Project{Checkout: top, GitDir: gitDir, CommonDir: common}
	cfg := GitConfig(filepath.Join(common, "config"), "core")
	switch {
	case filepath.Base(common) == ".git":
		// Ordinary repository or one of its linked worktrees.
		p.Root = filepath.Dir(common)
	case cfg["bare"] == "true":
		// A linked worktree of a bare repository: the bare repository is the
		// project, not the directory that holds it beside its siblings.
		p.Root = common
	case cfg["worktree"] != "":
		// A submodule: its git dir lives in the superproject's
		// .git/modules and core.worktree names its own checkout.
		wt := cfg["worktree"]
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(common, wt)
		}
		if r, err := filepath.EvalSymlinks(wt); err == nil {
			p.Root = r
		} else {
			p.Root = top
		}
	default:
		// A separate git dir (git init --separate-git-dir): the checkout is
		// the project.
		p.Root = top
	}
	if !Within(common, top) {
		p.GitDirs = append(p.GitDirs, common)
	}
	return p, true
}

// readGitfile returns the git dir a ".git" file points to.
func readGitfile(path string) (string, error) {
	b, err := readGitFile(path, gitPathLimit)
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r"), "gitdir: ")
	if !ok || target == "" {
		return "", os.ErrInvalid
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return target, nil
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

// GitEntry is one key of a git config file: its section as written between
// the brackets, lowercased (`core`, `submodule "lib"`), its key lowercased,
// and its value unquoted.
type GitEntry struct {
	Section, Key, Value string
}

// GitEntries reads a git config file, or .gitmodules, which has the same
// syntax; includes are not followed. A file that cannot be read has none.
func GitEntries(path string) []GitEntry {
	b, err := readGitFile(path, gitConfigLimit)
	if err != nil {
		return nil
	}
	var entries []GitEntry
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			entries = append(entries, GitEntry{section, strings.ToLower(strings.TrimSpace(k)), strings.Trim(strings.TrimSpace(v), `"`)})
		}
	}
	return entries
}

// GitConfig returns the keys of one plain section ([core], [extensions]) of
// a git config file: enough for bare, worktree and hooksPath.
func GitConfig(path, section string) map[string]string {
	keys := map[string]string{}
	for _, e := range GitEntries(path) {
		if e.Section == section {
			keys[e.Key] = e.Value
		}
	}
	return keys
}

// GitIncludes lists the files a git config file includes ([include] and
// [includeIf …] path values), as written.
func GitIncludes(path string) []string {
	var paths []string
	for _, e := range GitEntries(path) {
		if e.Key == "path" && (e.Section == "include" || strings.HasPrefix(e.Section, "includeif ")) {
			paths = append(paths, e.Value)
		}
	}
	return paths
}

// The most of a git file claudebox reads: a path (a gitfile, commondir),
// or a config file.
const (
	gitPathLimit   = 2 * unix.PathMax
	gitConfigLimit = 16 << 20
)

// readGitFile reads a git file of the repository, which the sandbox can
// write: it follows symlinks as git does, but reads only a regular file,
// non-blocking and size-capped, so a FIFO or a sparse file there cannot
// hang claudebox.
func readGitFile(path string, limit int64) ([]byte, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	return untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), limit)
}

// Within reports whether path is dir or below it.
func Within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}
