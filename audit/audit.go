// Package audit finds what a session left in the project that the host
// runs or obeys where no guard could stand (a nested .claude, a new
// repository's hooks, a .devcontainer), and moves it aside.
//
// A file counts when its status changed since the session began (ctime,
// which no one can set back): a file that was there, unchanged, before the
// session is never touched. What the host itself changed meanwhile cannot be
// told apart, so it is moved aside too, and the message says how to put it
// back.
package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// hostRunDirs hold what the host runs or obeys, whatever the file's name:
// Claude Code's project settings, hooks, commands, agents and skills; editor
// tasks and settings; dev container commands; hook managers' scripts.
var hostRunDirs = map[string]bool{
	".claude": true, ".vscode": true, ".idea": true, ".devcontainer": true,
	".husky": true, ".githooks": true,
}

// hostRunFiles are files the host's tools run or obey where they stand.
var hostRunFiles = map[string]bool{
	".mcp.json": true, ".envrc": true, ".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true,
	".pre-commit-config.yaml": true, ".gitmodules": true, ".gitconfig": true,
	".bashrc": true, ".bash_profile": true, ".zshrc": true, ".zprofile": true, ".profile": true,
	".claudebox.env": true, ".claudebox.toml": true, "devcontainer.json": true,
}

// hostRunPrefixes name hook managers' configuration files by their start.
var hostRunPrefixes = []string{"lefthook", ".lefthook", ".simple-git-hooks", ".lintstagedrc", "lint-staged.config", ".devcontainer."}

// gitRunNames are what git runs or follows in a git directory.
var gitRunNames = map[string]bool{
	"config": true, "config.worktree": true, "commondir": true, "gitdir": true, "attributes": true,
}

// gitData are a git directory's bulk, which holds nothing git runs.
var gitData = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true}

// skipDirs hold no file the host obeys in place, and are the bulk of a
// tree: dependencies installed by package managers.
var skipDirs = map[string]bool{"node_modules": true}

// maxEntries and maxDepth bound the walk: a tree the sandbox grew without
// end is reported as not fully audited, not walked for ever.
const (
	maxEntries = 2_000_000
	maxDepth   = 64
)

// errTruncated says the walk stopped at maxEntries or maxDepth.
var errTruncated = errors.New("the project has too many files, or too deep a tree, to audit them all")

// Scan lists the paths under root that the host runs or obeys and whose
// status changed at or after since, skipping the paths in guarded (their
// guard stood for the whole session). It never follows a symlink.
func Scan(root string, since time.Time, guarded map[string]bool) ([]string, error) {
	w := walker{since: since, guarded: guarded}
	w.dir(root, false, 0)
	if w.entries > maxEntries || w.tooDeep {
		return w.found, errTruncated
	}
	return w.found, nil
}

type walker struct {
	since   time.Time
	guarded map[string]bool
	found   []string
	entries int
	tooDeep bool
}

// dir walks path; all says every file in it is host-run. Only host-run
// entries are stat'ed: the names and types come from the directory itself.
func (w *walker) dir(path string, all bool, depth int) {
	if depth > maxDepth {
		w.tooDeep = true
		return
	}
	if w.entries > maxEntries {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		// A directory whose permissions the session took away could hide
		// anything: it is a finding itself.
		w.changed(path)
		return
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	w.entries += len(entries)
	inGit := filepath.Base(path) == ".git"
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(path, name)
		hostRun := all || hostRunFiles[name] || hasPrefix(name) || inGit && gitRunNames[name]
		switch {
		case w.guarded[p]:
		case e.IsDir():
			switch {
			case skipDirs[name], inGit && gitData[name]:
			case inGit && name == "hooks", hostRunDirs[name], hostRun:
				w.dir(p, true, depth+1)
			default:
				w.dir(p, false, depth+1)
			}
		// A gitfile redirects git; anything else host-run counts whatever
		// its type (a link, a FIFO).
		case hostRun || hostRunDirs[name] || name == ".git":
			w.changed(p)
		}
	}
}

// Replaced lists the guarded paths that are regular files whose status
// changed at or after since. A guard's file cannot change while its guard
// stands, so the host replaced it during the session (git config, an
// editor's save); the new file was written in a directory the sandbox
// can write, so the sandbox may have written it before the rename.
func Replaced(guarded []string, since time.Time) []string {
	var out []string
	for _, p := range guarded {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && !time.Unix(st.Ctim.Unix()).Before(since) {
			out = append(out, p)
		}
	}
	return out
}

// changed records p if its status changed since the session began.
func (w *walker) changed(p string) {
	var st unix.Stat_t
	if unix.Lstat(p, &st) == nil && !time.Unix(st.Ctim.Unix()).Before(w.since) {
		w.found = append(w.found, p)
	}
}

func hasPrefix(name string) bool {
	for _, p := range hostRunPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Moved is a finding and where it went.
type Moved struct{ From, To string }

// copyLimit bounds what one MoveAside copies across filesystems: the
// session can leave a sparse file of a terabyte, whose copy would take
// hours and fill claudebox's disk.
const copyLimit = 1 << 30

// MoveAside moves each path (under root) to the same relative path under
// dest, never following a symlink: by rename, or, across filesystems, by
// copying and removing, up to copyLimit bytes in all.
// One that cannot be moved is reported, and the rest still go.
func MoveAside(root, dest string, paths []string) ([]Moved, error) {
	budget := int64(copyLimit)
	var moved []Moved
	var errs []error
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		to := filepath.Join(dest, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := moveFile(p, to, &budget); err != nil {
			errs = append(errs, err)
			continue
		}
		moved = append(moved, Moved{From: p, To: to})
	}
	return moved, errors.Join(errs...)
}

// moveFile moves from to to; a copy across filesystems takes from budget
// the bytes it copies.
func moveFile(from, to string, budget *int64) error {
	// A directory the session took its owner's permissions from cannot be
	// renamed into another: they are given back first.
	var st unix.Stat_t
	if unix.Lstat(from, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Mode&0o700 != 0o700 {
		if err := os.Chmod(from, os.FileMode(st.Mode&0o7777|0o700)); err != nil {
			return err
		}
	}
	err := os.Rename(from, to)
	if !errors.Is(err, unix.EXDEV) {
		return err
	}
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if err := os.Symlink(target, to); err != nil {
			return err
		}
	case fi.Mode().IsRegular():
		if fi.Size() > *budget {
			return fmt.Errorf("%s: %d bytes, more than claudebox copies to move it aside to another filesystem", from, fi.Size())
		}
		*budget -= fi.Size()
		if err := copyRegular(from, to, fi.Mode().Perm(), fi.Size()); err != nil {
			return err
		}
	case fi.IsDir():
		if err := os.Mkdir(to, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := moveFile(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), budget); err != nil {
				return err
			}
		}
	default:
		// A FIFO or a device is nothing anyone meant to keep: removed.
	}
	return os.Remove(from)
}

// copyRegular copies the first size bytes of from, a regular file, to to.
func copyRegular(from, to string, perm os.FileMode, size int64) error {
	in, err := os.OpenFile(from, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, size)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
