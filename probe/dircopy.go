package probe

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// The bounds of a directory's private copy (treeCopy): beyond them, the
// copy is refused.
const (
	dirCopyEntries = 2000
	dirCopyBytes   = 16 << 20
	dirCopyDepth   = 8
)

// A copyPolicy is what a directory's private copy (treeCopy) takes of
// what lies below its root. Whatever the policy, a link is made again as
// it is, never followed (nor one made during the walk), and the copy is
// refused past its bounds (over dirCopyEntries entries, dirCopyBytes of
// files, levels of directories) or where a link or an entry cannot be
// read; a policy names what it leaves out where it wants it named.
type copyPolicy struct {
	// levels is how many levels of directories below the root are
	// copied: one deeper refuses the copy.
	levels int
	// skip passes over an entry by its name before it is counted or
	// looked at; nil passes over none.
	skip func(name string) bool
	// dir judges a directory below the root, listed as des (whole is
	// false where it could not be listed, or lies past levels).
	dir func(full string, fi fs.FileInfo, des []os.DirEntry, whole bool) copyFate
	// file judges an entry that is neither a directory nor a link: a
	// regular file (read reads it, within what is left of dirCopyBytes)
	// copied as the entry it returns, or a FIFO, a socket, a device.
	file func(full string, fi fs.FileInfo, read func() ([]byte, error)) (mount.DirCopyEntry, copyFate)
}

// copyFate is what a copyPolicy makes of an entry.
type copyFate int

const (
	copyEntry  copyFate = iota
	leaveOut            // not copied; the copy goes on
	refuseCopy          // the copy is refused whole
)

// A treeCopy is a directory's private copy being read, by its policy.
type treeCopy struct {
	mount.DirCopy
	policy copyPolicy
	// size is the bytes of the files copied so far.
	size int
}

// list lists the directory rel below the copy's Path, by name, reached
// through no link, as links and files are read: one made on the way
// during the walk (a directory of the copy replaced by a link to ~/.ssh)
// fails the read rather than leads out.
func (w *treeCopy) list(rel string) ([]os.DirEntry, error) {
	des, err := untrusted.ReadDir(w.Path, rel)
	slices.SortFunc(des, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return des, err
}

// walk copies the entries des of the directory rel (below the copy's
// Path, level levels down) and what lies below them; false where the
// copy is refused.
func (w *treeCopy) walk(rel string, des []os.DirEntry, level int) bool {
	for _, de := range des {
		if w.policy.skip != nil && w.policy.skip(de.Name()) {
			continue
		}
		if len(w.Entries) >= dirCopyEntries {
			return false
		}
		name, full := filepath.Join(rel, de.Name()), filepath.Join(w.Path, rel, de.Name())
		fi, err := os.Lstat(full)
		switch {
		case err != nil:
			return false
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := untrusted.Readlink(w.Path, name)
			if err != nil {
				return false
			}
			w.Entries = append(w.Entries, mount.DirCopyEntry{Rel: name, Link: target})
		case fi.IsDir():
			sub, err := w.list(name)
			switch w.policy.dir(full, fi, sub, err == nil && level < w.policy.levels) {
			case refuseCopy:
				return false
			case leaveOut:
				continue
			}
			w.Entries = append(w.Entries, mount.DirCopyEntry{Rel: name, Dir: true})
			if !w.walk(name, sub, level+1) {
				return false
			}
		default:
			e, fate := w.policy.file(full, fi, func() ([]byte, error) {
				return untrusted.ReadFile(w.Path, name, int64(dirCopyBytes-w.size))
			})
			switch fate {
			case refuseCopy:
				return false
			case copyEntry:
				e.Rel = name
				w.size += len(e.Content)
				w.Entries = append(w.Entries, e)
			}
		}
	}
	return true
}

// dirCopy reads the directory at path, one of ~/.claude's (copiedDirs),
// for its private copy: its directories, files and links, within the
// bounds; a git directory (isGitDir: a clone's .git, a bare repository,
// whose configuration may hold its URL's token), a .git file, a socket,
// a FIFO or a device is left out, and so is a file named as credentials
// are kept (credentialFile, creds). ok is false where the directory is
// beyond the bounds, is a git directory, or cannot be read whole: it is
// then shown whole, as it is.
func dirCopy(path string) (c mount.DirCopy, creds []string, ok bool) {
	des, err := os.ReadDir(path)
	if err != nil || isGitDir(path, des) {
		return mount.DirCopy{Path: path}, nil, false
	}
	w := treeCopy{DirCopy: mount.DirCopy{Path: path}, policy: copyPolicy{
		// ~/.claude's directory counts as one of its copy's levels.
		levels: dirCopyDepth - 1,
		skip:   func(name string) bool { return name == ".git" },
		dir: func(full string, _ fs.FileInfo, des []os.DirEntry, whole bool) copyFate {
			switch {
			case !whole:
				return refuseCopy
			case isGitDir(full, des):
				return leaveOut
			}
			return copyEntry
		},
		file: func(full string, fi fs.FileInfo, read func() ([]byte, error)) (mount.DirCopyEntry, copyFate) {
			switch {
			case !fi.Mode().IsRegular():
				return mount.DirCopyEntry{}, leaveOut
			case credentialFile(full):
				creds = append(creds, full)
				return mount.DirCopyEntry{}, leaveOut
			}
			b, err := read()
			if err != nil {
				return mount.DirCopyEntry{}, refuseCopy
			}
			return mount.DirCopyEntry{Content: string(b), Executable: fi.Mode()&0o111 != 0}, copyEntry
		},
	}}
	ok = w.walk("", des, 0)
	return w.DirCopy, creds, ok
}
