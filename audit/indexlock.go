package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// IndexLocks is where the exit audit records git's lock (index.lock) on
// each index it rewrites, for as long as it holds it: a directory of
// claudebox's state, which no sandbox reaches. A supervisor killed while
// it holds one leaves the lock, with which every host git that writes the
// index fails; the next claudebox command removes it (SweepIndexLocks).
type IndexLocks struct {
	Dir string
	// Held, when not nil, runs while the lock is held (a fault test holds
	// the supervisor there).
	Held func()
}

// lockRecord names a lock the audit made: the git directory it is in, and
// the file, by device and inode, by its modification time (set by the
// write; linking and renaming keep it), and by its size and its last bytes
// (the new index's checksum, zeros with index.skipHash). A lock the host's
// git took after the writer died is another file, even on a reused inode.
type lockRecord struct {
	GitDir string
	// Path is GitDir's bytes, as they are: JSON's strings hold those that
	// are not UTF-8 as U+FFFD (a repository the session made under such a
	// name kept its lock). A record of an older claudebox has none.
	Path     []byte
	Dev, Ino uint64
	Mtime    int64
	Size     int64
	Tail     []byte
}

// recordSuffix names a record once whole; a record being written has
// another name, which SweepIndexLocks passes over.
const recordSuffix = ".index-lock"

// tailSize is how much of the end of a lock its record keeps: the longest
// checksum git ends an index with.
const tailSize = 32

// identify is the record of the lock in file fd once it holds content.
func identify(fd int, gitDir string, content []byte) (lockRecord, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return lockRecord{}, err
	}
	return lockRecord{GitDir: gitDir, Path: []byte(gitDir), Dev: st.Dev, Ino: st.Ino, Mtime: st.Mtim.Nano(), Size: int64(len(content)), Tail: content[max(0, len(content)-tailSize):]}, nil
}

// record writes r, held (flock) until release is called: a record whose
// lock can be taken is one whose writer is gone. Where none can be
// written, release does nothing, and the rewrite goes on as before.
func (l IndexLocks) record(r lockRecord) (release func()) {
	if l.Dir == "" || os.MkdirAll(l.Dir, 0o700) != nil {
		return func() {}
	}
	b, _ := json.Marshal(r)
	name := fmt.Sprintf("%d.%d", os.Getpid(), time.Now().UnixNano())
	writing, path := filepath.Join(l.Dir, "."+name), filepath.Join(l.Dir, name+recordSuffix)
	f, err := os.OpenFile(writing, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return func() {}
	}
	if err = unix.Flock(int(f.Fd()), unix.LOCK_EX); err == nil {
		if _, err = f.Write(b); err == nil {
			err = os.Rename(writing, path)
		}
	}
	if err != nil {
		os.Remove(writing)
		f.Close()
		return func() {}
	}
	return func() {
		os.Remove(path)
		f.Close()
	}
}

// indexLock is git's lock on an index, made by the exit audit: the git
// directory it is in, its file (held open, so that its inode is not
// another file's while the audit holds it) by device and inode, and its
// record.
type indexLock struct {
	dir      int
	file     *os.File
	dev, ino uint64
	forget   func()
}

// release forgets the lock, wherever it stands now.
func (k indexLock) release() {
	k.forget()
	k.file.Close()
}

// ours says index.lock is still the file the audit made: another process
// may have removed it and taken the lock since (the host's git), whose
// lock the audit must neither remove nor rename over the index.
func (k indexLock) ours() bool {
	var st unix.Stat_t
	return unix.Fstatat(k.dir, "index.lock", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Dev == k.dev && st.Ino == k.ino
}

// remove removes the lock if it is still the audit's, and forgets it.
func (k indexLock) remove() {
	if k.ours() {
		unix.Unlinkat(k.dir, "index.lock", 0)
	}
	k.release()
}

// lockIndex takes git's lock on the index in the git directory fd, as a
// file already holding content (made unnamed, then linked as index.lock,
// which fails if git holds the lock), recorded in l before it is linked.
// Where the file system makes no unnamed file, or the kernel links none
// (no /proc, and linkat's AT_EMPTY_PATH refused), the lock is made,
// written, then recorded.
func (l IndexLocks) lockIndex(fd int, gitDir string, content []byte) (indexLock, error) {
	tmp, err := unix.Openat(fd, ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return l.createLock(fd, gitDir, content)
	}
	f := os.NewFile(uintptr(tmp), "index.lock")
	if _, err := f.Write(content); err != nil {
		f.Close()
		return indexLock{}, err
	}
	k, err := l.identify(fd, f, gitDir, content)
	if err != nil {
		f.Close()
		return indexLock{}, err
	}
	if err := linkUnnamed(tmp, fd, "index.lock"); err != nil {
		k.release()
		if errors.Is(err, errNoLink) {
			return l.createLock(fd, gitDir, content)
		}
		return indexLock{}, fmt.Errorf("git's lock: %w", err)
	}
	return k, nil
}

// procFD is where the kernel shows this process's descriptors.
var procFD = "/proc/self/fd/"

// errNoLink is an unnamed file the kernel gives no way to link.
var errNoLink = errors.New("no way to link an unnamed file: /proc is not mounted and linkat's AT_EMPTY_PATH is refused")

// linkUnnamed links the unnamed file tmp as name in the directory dir:
// by its descriptor where the kernel allows it, else through /proc.
func linkUnnamed(tmp, dir int, name string) error {
	err := unix.Linkat(tmp, "", dir, name, unix.AT_EMPTY_PATH)
	if err != unix.EPERM && err != unix.ENOENT {
		return err
	}
	err = unix.Linkat(unix.AT_FDCWD, procFD+strconv.Itoa(tmp), dir, name, unix.AT_SYMLINK_FOLLOW)
	if err == unix.ENOENT {
		if _, serr := os.Stat(procFD); serr != nil {
			return errNoLink
		}
	}
	return err
}

// identify is the lock in f once it holds content, recorded.
func (l IndexLocks) identify(dir int, f *os.File, gitDir string, content []byte) (indexLock, error) {
	r, err := identify(int(f.Fd()), gitDir, content)
	if err != nil {
		return indexLock{}, err
	}
	return indexLock{dir: dir, file: f, dev: r.Dev, ino: r.Ino, forget: l.record(r)}, nil
}

// createLock is lockIndex where no unnamed file can be made or linked.
func (l IndexLocks) createLock(fd int, gitDir string, content []byte) (indexLock, error) {
	lock, err := unix.Openat(fd, "index.lock", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return indexLock{}, fmt.Errorf("git's lock: %w", err)
	}
	f := os.NewFile(uintptr(lock), "index.lock")
	// Written before it is identified: its record names the modification
	// time and size of the whole file, which the write sets.
	if _, err := f.Write(content); err != nil {
		unix.Unlinkat(fd, "index.lock", 0)
		f.Close()
		return indexLock{}, err
	}
	k, err := l.identify(fd, f, gitDir, content)
	if err != nil {
		unix.Unlinkat(fd, "index.lock", 0)
		f.Close()
		return indexLock{}, err
	}
	return k, nil
}

// SweepIndexLocks removes the locks recorded in dir whose writer is gone
// (a supervisor killed while its exit audit rewrote an index), where the
// same file still stands as index.lock, and returns their paths. A lock
// another file now holds (the host's git took it since) stays.
func SweepIndexLocks(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), recordSuffix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // its writer runs
			continue
		}
		var r lockRecord
		b, err := untrusted.ReadFile(dir, e.Name(), 1<<16)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err == nil && len(r.Path) > 0 {
			r.GitDir = string(r.Path)
		}
		if err == nil && filepath.IsAbs(r.GitDir) {
			if removeLock(r) == nil {
				removed = append(removed, filepath.Join(r.GitDir, "index.lock"))
			}
		}
		os.Remove(path)
		f.Close()
	}
	return removed
}

// removeLock removes r's lock if the same file still stands there.
func removeLock(r lockRecord) error {
	d, err := openRoot(r.GitDir)
	if err != nil {
		return err
	}
	defer d.Close()
	fd, err := unix.Openat(int(d.Fd()), "index.lock", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "index.lock")
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	tail := make([]byte, len(r.Tail))
	if st.Dev != r.Dev || st.Ino != r.Ino || st.Mtim.Nano() != r.Mtime || st.Size != r.Size || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errors.New("another file")
	}
	if _, err := f.ReadAt(tail, r.Size-int64(len(tail))); err != nil || !bytes.Equal(tail, r.Tail) {
		return errors.New("another file")
	}
	return unix.Unlinkat(int(d.Fd()), "index.lock", 0)
}
