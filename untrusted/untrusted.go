// Package untrusted is how host-side code reads and writes files the sandbox
// can write: the instance directory and the project. Every path is relative
// to a directory the caller trusts, and is resolved beneath it without
// following a symlink in any component (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or a walk with O_NOFOLLOW where the kernel lacks
// openat2). Reads take regular files only, opened non-blocking, up to a
// size limit, so a FIFO cannot hang the host and a sparse file cannot fill
// its memory. Writes are atomic and renames never replace what is there.
package untrusted

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/holdpoint"
)

// ErrNotRegular is returned for a read of something other than a regular
// file: a FIFO, socket, device node or directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a read of a file over its size limit.
var ErrTooLarge = errors.New("larger than claudebox reads")

// noOpenat2 is set once openat2 has answered ENOSYS (a kernel before 5.6)
// or EPERM (a container's seccomp profile that predates it), and by tests,
// to take the component walk instead. Reads run concurrently (the guard
// watcher, the exit audit), hence atomic.
var noOpenat2 atomic.Bool

// open resolves name beneath dir, which the caller trusts and which may
// itself be reached through symlinks, with no symlink in name.
func open(dir, name string, flags int, perm uint32) (int, error) {
	d, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(d)
	return openAt(d, name, flags, perm, dir)
}

// openAt resolves name beneath the directory descriptor d; path names d in
// errors.
func openAt(d int, name string, flags int, perm uint32, path string) (int, error) {
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(d, name, &unix.OpenHow{
			Flags:   uint64(flags),
			Mode:    uint64(perm),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		// A file's own EPERM (an immutable file opened to write) takes the
		// walk too, which answers it the same.
		if err != unix.ENOSYS && err != unix.EPERM {
			if err != nil {
				return -1, &fs.PathError{Op: "open", Path: filepath.Join(path, name), Err: err}
			}
			return fd, nil
		}
		noOpenat2.Store(true)
	}
	fd, err := walk(d, name, flags, perm)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: filepath.Join(path, name), Err: err}
	}
	return fd, nil
}

// walk is openat2's resolution done by hand: one component at a time, each
// opened with O_NOFOLLOW, ".." and absolute paths refused.
func walk(d int, name string, flags int, perm uint32) (int, error) {
	if filepath.IsAbs(name) {
		return -1, unix.EXDEV
	}
	parts := strings.Split(filepath.Clean(name), "/")
	cur := d
	defer func() {
		if cur != d {
			unix.Close(cur)
		}
	}()
	for i, p := range parts {
		if p == ".." {
			return -1, unix.EXDEV
		}
		var fd int
		var err error
		if i == len(parts)-1 {
			fd, err = unix.Openat(cur, p, flags, perm)
		} else {
			fd, err = unix.Openat(cur, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		// O_NOFOLLOW with O_DIRECTORY or O_PATH does not say ELOOP for a
		// symlink, as openat2 does.
		var st unix.Stat_t
		if (err == unix.ENOTDIR || err == nil && flags&unix.O_PATH != 0) && unix.Fstatat(cur, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if err == nil {
				unix.Close(fd)
			}
			fd, err = -1, unix.ELOOP
		}
		if err != nil || i == len(parts)-1 {
			return fd, err
		}
		if cur != d {
			unix.Close(cur)
		}
		cur = fd
	}
	return -1, unix.ENOENT
}

// parent opens the directory holding name beneath dir, for the *at calls
// that create, rename and remove there; it returns name's last component.
func parent(dir, name string) (int, string, error) {
	sub, base := filepath.Split(filepath.Clean(name))
	if sub == "" {
		sub = "."
	}
	if base == ".." || base == "." {
		return -1, "", &fs.PathError{Op: "open", Path: filepath.Join(dir, name), Err: unix.EINVAL}
	}
	d, err := open(dir, sub, unix.O_PATH|unix.O_DIRECTORY, 0)
	return d, base, err
}

// Open opens name beneath dir for reading: a regular file only, opened
// non-blocking, so that a FIFO the sandbox left returns at once.
func Open(dir, name string) (*os.File, error) {
	fd, err := open(dir, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, name))
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "read", Path: f.Name(), Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads name beneath dir, a regular file of at most limit bytes.
func ReadFile(dir, name string, limit int64) ([]byte, error) {
	f, err := Open(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readOpen(f, fi, limit)
}

// ReadAgain reads the open regular file f whole from its start, up to
// limit, as ReadFile does: a file read more than once through one
// descriptor is the same file each time.
func ReadAgain(f *os.File, limit int64) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readOpen(f, fi, limit)
}

// readOpen reads the open regular file f, which fi describes, up to limit.
func readOpen(f *os.File, fi fs.FileInfo, limit int64) ([]byte, error) {
	// Made only when it is returned: formatting it at each read cost a
	// launch's hundreds of reads about 0.3 ms.
	tooLarge := func() error {
		return &fs.PathError{Op: "read", Path: f.Name(), Err: fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, fi.Size(), limit)}
	}
	if fi.Size() > limit {
		return nil, tooLarge()
	}
	// Sized by the file's own size (within limit, above): a buffer grown
	// as it fills copied a 25 MB ~/.claude.json over and over.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(f, limit+1))
	b := buf.Bytes()
	if err == nil && int64(len(b)) > limit {
		return nil, tooLarge()
	}
	return b, err
}

// FileID is a file's identity, its device and inode: what a later read
// must find again to read the file that was checked.
type FileID struct{ Dev, Ino uint64 }

// IDOf is the identity of the file fi describes; zero where fi does not
// come from the kernel.
func IDOf(fi fs.FileInfo) FileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}
	}
	return FileID{Dev: st.Dev, Ino: st.Ino}
}

// ErrReplaced is returned for a read of a file that is no longer the one
// that was checked.
var ErrReplaced = errors.New("replaced since it was checked")

// ReadChecked reads name beneath dir as ReadFile does, only if it is the
// file id names: what was checked is what is read, whatever replaced it in
// between. A zero id matches no file.
func ReadChecked(dir, name string, id FileID, limit int64) ([]byte, error) {
	f, err := Open(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if got := IDOf(fi); got != id || id == (FileID{}) {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: ErrReplaced}
	}
	return readOpen(f, fi, limit)
}

// ReadResolved reads the file at path, an absolute path whose links (the
// user's own, a dotfiles manager's) are resolved once, here; the file they
// lead to is then read with no link on the way, so that a link made in
// between is not followed. It returns the real path read.
func ReadResolved(path string, limit int64) ([]byte, string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, "", err
	}
	b, err := ReadFile("/", strings.TrimPrefix(real, "/"), limit)
	return b, real, err
}

// ErrShrunk is returned for a mapped file (ScanResolved) that shrank
// while it was read.
var ErrShrunk = errors.New("shrank while it was read")

// ScanResolved calls fn with the content of the file at path, its links
// resolved as ReadResolved resolves them, mapped into memory rather than
// read into it: what fn keeps of it, it copies. A read fills memory of
// the process's own, a new page at each 4 KiB, which on a virtual machine
// costs as much as the read itself many times over (a 25 MB
// ~/.claude.json: 0.31 s of processor time read, 0.04 s mapped); mapped,
// the page cache's pages are shown in place. A file that shrinks under
// fn (its owner's program rewriting it in place) ends the scan with
// ErrShrunk rather than the process; where it cannot be mapped, it is
// read. For the host's own files only: the scan sees a writer's changes.
func ScanResolved(path string, limit int64, fn func([]byte)) (err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	f, err := Open("/", strings.TrimPrefix(real, "/"))
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return ScanFile(f, fi, limit, fn)
}

// ScanFile is ScanResolved of the open file f, whose status is fi.
func ScanFile(f *os.File, fi fs.FileInfo, limit int64, fn func([]byte)) (err error) {
	if fi.Size() > limit || fi.Size() == 0 {
		b, err := readOpen(f, fi, limit)
		if err == nil {
			fn(b)
		}
		return err
	}
	// Populated in the one call: the callers read the whole file, and each of a
	// mapping's first touches is a fault of its own (16 pages a fault
	// where the page cache holds the file in small folios: 400 for 25 MB,
	// 15-35 us each on a virtual machine).
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		if b, err = readOpen(f, fi, limit); err == nil {
			fn(b)
		}
		return err
	}
	defer unix.Munmap(b)
	// A page past the file's new end faults (SIGBUS): a panic in this
	// goroutine, recovered here, only for an address in the mapping.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok {
			if start := uintptr(unsafe.Pointer(unsafe.SliceData(b))); fault.Addr() >= start && fault.Addr() < start+uintptr(len(b)) {
				err = &fs.PathError{Op: "read", Path: f.Name(), Err: ErrShrunk}
				return
			}
		}
		panic(r)
	}()
	fn(b)
	return nil
}

// Lstat describes name beneath dir, not following it if it is a symlink.
func Lstat(dir, name string) (fs.FileInfo, error) {
	d, base, err := parent(dir, name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(d)
	fd, err := unix.Openat(d, base, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: filepath.Join(dir, name), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, name))
	defer f.Close()
	return f.Stat()
}

// Readlink reads the symlink name beneath dir, at most 4096 bytes of it.
func Readlink(dir, name string) (string, error) {
	d, base, err := parent(dir, name)
	if err != nil {
		return "", err
	}
	defer unix.Close(d)
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(d, base, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: filepath.Join(dir, name), Err: err}
	}
	return string(buf[:n]), nil
}

// ReadDir lists the directory name beneath dir ("." for dir itself).
func ReadDir(dir, name string) ([]fs.DirEntry, error) {
	fd, err := open(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, name))
	defer f.Close()
	return f.ReadDir(-1)
}

// WriteFile writes data to name beneath dir atomically: a new file beside
// it, renamed over it. Whatever stood there (a symlink, a FIFO) is
// replaced, never written through.
func WriteFile(dir, name string, data []byte, perm os.FileMode) error {
	return WriteFrom(dir, name, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteFrom is WriteFile with the content written by write into the new
// file; an error from it leaves name as it was.
func WriteFrom(dir, name string, perm os.FileMode, write func(f *os.File) error) error {
	d, base, err := parent(dir, name)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	var tmp string
	var fd int
	for i := 0; ; i++ {
		tmp = "." + base + ".tmp" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i)
		fd, err = unix.Openat(d, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != unix.EEXIST || i == 100 {
			break
		}
	}
	if err != nil {
		return &fs.PathError{Op: "create", Path: filepath.Join(dir, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	err = write(f)
	if err == nil {
		err = f.Chmod(perm.Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = unix.Renameat(d, tmp, d, base); err != nil {
			err = &fs.PathError{Op: "rename", Path: filepath.Join(dir, name), Err: err}
		}
	}
	if err != nil {
		unix.Unlinkat(d, tmp, 0)
	}
	return err
}

// Rename renames oldname to newname, both beneath dir, and fails with
// fs.ErrExist rather than replace anything at newname.
func Rename(dir, oldname, newname string) error {
	od, obase, err := parent(dir, oldname)
	if err != nil {
		return err
	}
	defer unix.Close(od)
	nd, nbase, err := parent(dir, newname)
	if err != nil {
		return err
	}
	defer unix.Close(nd)
	if err := unix.Renameat2(od, obase, nd, nbase, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(dir, oldname), New: filepath.Join(dir, newname), Err: err}
	}
	return nil
}

// RenameOut moves name, beneath dir, to the path to outside it, which the
// caller trusts, and fails with fs.ErrExist rather than replace anything
// there. Only to's last component is created: its directory is the
// caller's.
func RenameOut(dir, name, to string) error {
	d, base, err := parent(dir, name)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	if err := unix.Renameat2(d, base, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(dir, name), New: to, Err: err}
	}
	return nil
}

// RemoveIf removes name beneath dir, a file or an empty directory, when
// match says so of what is there: its status and, for a regular file or a
// directory, a descriptor open on it to read (nil if it cannot be opened).
// What match examines and what is removed are the same entry of the same
// directory, reached without a symlink, so that a swap above it cannot
// send the removal to another file of that name; a file renamed over the
// name after match (the host's editor saving) is not removed, but left
// in its place. It reports whether it removed the entry.
func RemoveIf(dir, name string, match func(fi fs.FileInfo, f *os.File) bool) (bool, error) {
	d, base, err := parent(dir, name)
	if err != nil {
		return false, err
	}
	defer unix.Close(d)
	path := filepath.Join(dir, name)
	p, err := unix.Openat(d, base, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	pf := os.NewFile(uintptr(p), path)
	defer pf.Close()
	fi, err := pf.Stat()
	if err != nil {
		return false, err
	}
	var f *os.File
	if fi.IsDir() || fi.Mode().IsRegular() {
		if fd, err := unix.Openat(d, base, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err == nil {
			f = os.NewFile(uintptr(fd), path)
			defer f.Close()
			if ffi, err := f.Stat(); err != nil || !os.SameFile(fi, ffi) {
				f = nil
			}
		}
	}
	if !match(fi, f) {
		return false, nil
	}
	holdpoint.At("removal judged " + base)
	// A writer of this very directory (the host's editor saving by a
	// rename) may have put another file at the name since: what is
	// removed is first taken away from it, under a name of its own, and
	// removed only if it is the entry examined; another goes back.
	aside, err := asideName()
	if err != nil {
		return false, err
	}
	if err := renameNoReplace(d, base, aside); err != nil {
		return false, &os.LinkError{Op: "rename", Old: path, New: filepath.Join(filepath.Dir(path), aside), Err: err}
	}
	var st unix.Stat_t
	err = unix.Fstatat(d, aside, &st, unix.AT_SYMLINK_NOFOLLOW)
	if now := fi.Sys().(*syscall.Stat_t); err != nil || st.Dev != now.Dev || st.Ino != now.Ino {
		if err := renameNoReplace(d, aside, base); err != nil {
			return false, &os.LinkError{Op: "rename back", Old: filepath.Join(filepath.Dir(path), aside), New: path, Err: err}
		}
		return false, nil
	}
	flags := 0
	if fi.IsDir() {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(d, aside, flags); err != nil {
		renameNoReplace(d, aside, base)
		return false, &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return true, nil
}

// AsidePrefix begins the name RemoveIf takes an entry aside under: one
// still named so was left by a removal killed midway.
const AsidePrefix = ".claudebox-removing-"

// asideName is a name no one can foresee, for RemoveIf to take an entry
// away from its own: the sandbox writes the directory, and an entry it
// left there under that name would keep the removal from happening.
func asideName() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return AsidePrefix + hex.EncodeToString(b), nil
}

// renameat2 is the system call, a variable for the tests of a filesystem
// without RENAME_NOREPLACE.
var renameat2 = unix.Renameat2

// renameNoReplace renames from to to, both in d, replacing nothing at to.
// Where the filesystem refuses RENAME_NOREPLACE (an NFS mount), it renames
// plainly once nothing is at to: a window a host writer could hit there,
// where refusing would leave every stand-in in the user's project.
func renameNoReplace(d int, from, to string) error {
	err := renameat2(d, from, d, to, unix.RENAME_NOREPLACE)
	if err != unix.EINVAL {
		return err
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(d, to, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil:
		return unix.EEXIST
	case err != unix.ENOENT:
		return err
	}
	return renameat2(d, from, d, to, 0)
}

// RemoveAll removes name beneath dir and everything under it. It never
// follows a symlink, and gives back to each directory the owner's
// permissions the sandbox took away, so that a mode-000 directory cannot
// stop it.
func RemoveAll(dir, name string) error {
	d, base, err := parent(dir, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer unix.Close(d)
	if err := removeAt(d, base); err != nil {
		return &fs.PathError{Op: "remove", Path: filepath.Join(dir, name), Err: err}
	}
	return nil
}

// maxOpenDirs bounds the directories removeAt holds open at once (one
// descriptor each), however deep the nest the sandbox made: deeper than
// this, a directory is moved up to the top of the tree being removed, so
// the host's limit on open files cannot stop the removal.
const maxOpenDirs = 16

func removeAt(d int, name string) error {
	err := unix.Unlinkat(d, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR {
		return err
	}
	top, err := openDirOwned(d, name)
	if err != nil {
		return err
	}
	defer unix.Close(top)
	// Each pass that moved a directory up leaves it in top for the next:
	// every move takes a directory maxOpenDirs-1 levels nearer the top, so a
	// tree that stops changing is gone after finitely many passes.
	var moves int
	for {
		fd, err := unix.Openat(top, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), name)
		moved, err := empty(top, f, 1, &moves)
		f.Close()
		if err != nil {
			return err
		}
		if !moved {
			break
		}
	}
	err = unix.Unlinkat(d, name, unix.AT_REMOVEDIR)
	if err == unix.ENOENT {
		return nil
	}
	return err
}

// empty removes what is in the directory f, depth levels below top. A
// directory at maxOpenDirs levels is not opened but renamed into top,
// beside what is being removed, never out of it; empty reports whether it
// moved one. moves counts the names it has taken in top.
func empty(top int, f *os.File, depth int, moves *int) (moved bool, err error) {
	dir := int(f.Fd())
	for {
		names, rerr := f.Readdirnames(1024)
		for _, n := range names {
			err := unix.Unlinkat(dir, n, 0)
			if err == nil || err == unix.ENOENT {
				continue
			}
			if err != unix.EISDIR {
				return moved, err
			}
			if depth >= maxOpenDirs {
				if err := moveUp(top, dir, n, moves); err != nil {
					return moved, err
				}
				moved = true
				continue
			}
			sub, err := openDirOwned(dir, n)
			if err != nil {
				return moved, err
			}
			sf := os.NewFile(uintptr(sub), n)
			m, err := empty(top, sf, depth+1, moves)
			sf.Close()
			moved = moved || m
			if err != nil {
				return moved, err
			}
			if err := unix.Unlinkat(dir, n, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
				return moved, err
			}
		}
		if rerr == io.EOF || len(names) == 0 {
			return moved, nil
		}
		if rerr != nil {
			return moved, rerr
		}
	}
}

// moveUp renames the directory name in dir into top under a name of its
// own, first giving it the owner's write permission that moving a
// directory to another parent needs. A rename moves the entry itself,
// never what a symlink points to.
func moveUp(top, dir int, name string, moves *int) error {
	p, err := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	err = ownerRWX(p)
	unix.Close(p)
	if err != nil {
		return err
	}
	for {
		*moves++
		err := unix.Renameat2(dir, name, top, ".claudebox-remove-"+strconv.Itoa(*moves), unix.RENAME_NOREPLACE)
		if err != unix.EEXIST {
			return err
		}
	}
}

// openDirOwned opens the directory name in d for listing and removing its
// entries, first restoring the owner's read, write and search permission
// where they are missing. The descriptor it changes the mode through is
// the directory itself, never a link.
func openDirOwned(d int, name string) (int, error) {
	p, err := unix.Openat(d, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(p)
	if err := ownerRWX(p); err != nil {
		return -1, err
	}
	return unix.Openat(p, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}

// ownerRWX adds the owner's read, write and search permission to the
// directory open (O_PATH) on p, where they are missing.
func ownerRWX(p int) error {
	var st unix.Stat_t
	if err := unix.Fstat(p, &st); err != nil {
		return err
	}
	if st.Mode&0o700 == 0o700 {
		return nil
	}
	return chmodFD(p, st.Mode&0o7777|0o700)
}

// RepairDir gives the directory dir, one of claudebox's own, back the
// owner's read, write and search permission if the sandbox took them away
// (chmod 000 ~/.claude/projects). It reports whether it had to.
func RepairDir(dir string) (bool, error) {
	p, err := unix.Open(dir, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(p)
	var st unix.Stat_t
	if err := unix.Fstat(p, &st); err != nil {
		return false, err
	}
	if st.Mode&0o700 == 0o700 {
		return false, nil
	}
	if err := ownerRWX(p); err != nil {
		return false, &fs.PathError{Op: "chmod", Path: dir, Err: err}
	}
	return true, nil
}

// GiveBackDir gives the directory name beneath dir, reached with no link
// on the way, its owner's read, write and search permission back where
// they are missing, if it is still the inode ino; it returns the
// permissions it had and whether it changed them.
func GiveBackDir(dir, name string, ino uint64) (fs.FileMode, bool, error) {
	p, err := open(dir, name, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, false, err
	}
	defer unix.Close(p)
	had, ok, err := GiveBackFD(p, ino)
	if err != nil {
		return 0, false, &fs.PathError{Op: "chmod", Path: filepath.Join(dir, name), Err: err}
	}
	return had, ok, nil
}

// GiveBackFD is GiveBackDir for the directory open at fd (O_PATH or not),
// which a walk reached with no link on the way.
func GiveBackFD(fd int, ino uint64) (fs.FileMode, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Ino != ino || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o700 == 0o700 {
		return 0, false, err
	}
	if err := chmodFD(fd, st.Mode&0o7777|0o700); err != nil {
		return 0, false, err
	}
	return fs.FileMode(st.Mode & 0o777), true, nil
}

// ReadableFD gives the regular file open at fd (O_PATH or not), which a
// walk reached with no link on the way, its owner's read permission back
// where it is missing, if it is still the inode ino; it returns the
// permissions it had and whether it changed them.
func ReadableFD(fd int, ino uint64) (fs.FileMode, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Ino != ino || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o400 != 0 {
		return 0, false, err
	}
	if err := chmodFD(fd, st.Mode&0o7777|0o400); err != nil {
		return 0, false, err
	}
	return fs.FileMode(st.Mode & 0o777), true, nil
}

// Chmod sets the permissions of name beneath dir, not following it if it
// is a symlink.
func Chmod(dir, name string, mode fs.FileMode) error {
	d, base, err := parent(dir, name)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	p, err := unix.Openat(d, base, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "chmod", Path: filepath.Join(dir, name), Err: err}
	}
	defer unix.Close(p)
	if err := chmodFD(p, uint32(mode.Perm())); err != nil {
		return &fs.PathError{Op: "chmod", Path: filepath.Join(dir, name), Err: err}
	}
	return nil
}

// chmodFD changes the mode of what the O_PATH descriptor p names. fchmod
// refuses such a descriptor; its /proc link names the same inode, whatever
// has been renamed since. A symlink's mode cannot change: that is refused.
func chmodFD(p int, mode uint32) error {
	var st unix.Stat_t
	if err := unix.Fstat(p, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return unix.Chmod("/proc/self/fd/"+strconv.Itoa(p), mode)
}

// kind names a file type for a message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device node"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a file"
}

// Kind names what an entry is, for a message about a bad one: "a FIFO",
// "a symlink", "a directory".
func Kind(fi fs.FileInfo) string { return kind(fi.Mode()) }
