package hardlink

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// ErrChanged is returned for a file that changed while it was copied, or
// whose name came to hold another file before the copy took it.
var ErrChanged = errors.New("it changed while claudebox copied it")

// ErrNoRoom is returned when the copies would leave less than 256 MiB free
// on the project's filesystem.
var ErrNoRoom = errors.New("not enough free space for the copies")

// minFree is the room the copies must leave on the project's filesystem.
const minFree = 256 << 20

// Summary says how many files all holds, what they take on disk, and
// whose links they are, in a phrase.
func Summary(all []Found) (files int, bytes int64, whose string) {
	var in [placeCount]bool
	for _, found := range all {
		files += len(found.files)
		bytes += found.bytes()
		for _, f := range found.files {
			in[f.kind] = true
		}
	}
	var names []string
	for p, ok := range in {
		if ok {
			names = append(names, why[p])
		}
	}
	return files, bytes, strings.Join(names, ", ")
}

// Break makes each file found a file of its own where it is still a
// regular file with a second name: a copy beside it, with its mode and
// times, renamed over it (exchanged with it, where the filesystem can, so
// that a name changed in between is seen and put back). A file gone or no
// longer linked is passed over. The copies take what the files take on
// disk (holes stay holes); Break refuses to leave less than 256 MiB free.
// A file of the user's that the user may not read is read all the same,
// its mode kept (openUnreadable). It returns how many it copied and those
// it had to lend read permission to; an error names the file it failed
// on, and what was copied before stays so.
func Break(all []Found) (copied int, unreadable []string, err error) {
	for _, found := range all {
		if err := room(found); err != nil {
			return copied, unreadable, err
		}
		n, lent, err := breakBeneath(found)
		copied += n
		unreadable = append(unreadable, lent...)
		if err != nil {
			return copied, unreadable, err
		}
	}
	return copied, unreadable, nil
}

// room refuses copies that would leave less than minFree free.
func room(found Found) error {
	var st unix.Statfs_t
	if unix.Statfs(found.base, &st) != nil {
		return nil
	}
	free := int64(st.Bavail) * st.Bsize
	if need := found.bytes(); free-need < minFree {
		return &fs.PathError{Op: "copy", Path: found.base, Err: fmt.Errorf("%w: %d MiB to copy, %d MiB free", ErrNoRoom, need>>20, free>>20)}
	}
	return nil
}

func breakBeneath(found Found) (copied int, unreadable []string, err error) {
	files := copyOrder(found.files)
	var dir *os.File
	var dirRel string
	defer func() {
		if dir != nil {
			dir.Close()
		}
	}()
	for _, f := range files {
		rel, name := filepath.Split(f.rel)
		if dir == nil || rel != dirRel {
			if dir != nil {
				dir.Close()
				dir = nil
			}
			d, err := untrusted.OpenDir(found.base, filepath.Clean("./"+rel))
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				continue
			}
			if err != nil {
				return copied, unreadable, err
			}
			dir, dirRel = d, rel
		}
		n, lent, err := breakLink(int(dir.Fd()), name)
		if errors.Is(err, ErrChanged) {
			// Once more: the host's tool may have been writing it.
			n, lent, err = breakLink(int(dir.Fd()), name)
		}
		if err != nil {
			return copied, unreadable, &fs.PathError{Op: "copy", Path: filepath.Join(found.base, f.rel), Err: err}
		}
		if n {
			copied++
		}
		if lent {
			unreadable = append(unreadable, filepath.Join(found.base, f.rel))
		}
	}
	return copied, unreadable, nil
}

// copyOrder is the order Break copies files in: a directory's together,
// the markers last (see linkedFile).
func copyOrder(files []linkedFile) []linkedFile {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b linkedFile) int {
		if a.marker != b.marker {
			if a.marker {
				return 1
			}
			return -1
		}
		return strings.Compare(a.rel, b.rel)
	})
	return files
}

// breakLink makes name in the directory d a file of its own, if it is a
// regular file with a second name; it says whether it made a copy.
func breakLink(d int, name string) (copied, unreadable bool, err error) {
	fd, err := unix.Openat(d, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err == unix.EACCES {
		fd, err = openUnreadable(d, name)
		unreadable = err == nil
	}
	if err == unix.ENOENT || err == unix.ELOOP {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink < 2 {
		return false, false, nil
	}
	tmp, tmpName, err := createBeside(d)
	if err == unix.EROFS {
		// The sandbox cannot write it either.
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	placed := false
	defer func() {
		unix.Close(tmp)
		if !placed {
			unix.Unlinkat(d, tmpName, 0)
		}
	}()
	if err := copyData(fd, tmp, st.Size); err != nil {
		return false, false, err
	}
	if err := unix.Fchmod(tmp, st.Mode&0o777); err != nil {
		return false, false, err
	}
	if err := unix.UtimesNano("/proc/self/fd/"+strconv.Itoa(tmp), []unix.Timespec{st.Atim, st.Mtim}); err != nil {
		return false, false, err
	}
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil {
		return false, false, err
	}
	if after.Size != st.Size || after.Mtim != st.Mtim {
		return false, false, ErrChanged
	}
	if err := exchange(d, tmpName, name, st); err != nil {
		return false, false, err
	}
	placed = true
	return true, unreadable, nil
}

// openUnreadable opens for reading name in the directory d, a file of
// the user's with more than one name that the user may not read (chmod
// 000: a sandbox runs as the user, and took the permission away so that
// no launch could copy it, and every launch refused): read permission is
// lent to it for the open and taken back at once, so that its other
// names, which may be outside the project, keep their mode. A file of
// another's is not opened: the sandbox cannot write it either.
func openUnreadable(d int, name string) (int, error) {
	path, err := unix.Openat(d, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(path)
	var st unix.Stat_t
	if err := unix.Fstat(path, &st); err != nil {
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink < 2 || int(st.Uid) != os.Geteuid() || st.Mode&0o400 != 0 {
		return -1, unix.EACCES
	}
	self := "/proc/self/fd/" + strconv.Itoa(path)
	if err := unix.Chmod(self, st.Mode&0o7777|0o400); err != nil {
		return -1, err
	}
	fd, err := unix.Open(self, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if rerr := unix.Chmod(self, st.Mode&0o7777); err == nil && rerr != nil {
		unix.Close(fd)
		return -1, rerr
	}
	return fd, err
}

// exchange puts the copy tmp in the place of name, which must still be
// the file was (its identity), and removes the file's name that is then
// tmp.
func exchange(d int, tmp, name string, was unix.Stat_t) error {
	same := func(n string) bool {
		var st unix.Stat_t
		return unix.Fstatat(d, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Dev == was.Dev && st.Ino == was.Ino
	}
	err := unix.Renameat2(d, tmp, d, name, unix.RENAME_EXCHANGE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		// A filesystem that cannot exchange: the check and the rename are
		// two steps.
		if !same(name) {
			return ErrChanged
		}
		return unix.Renameat(d, tmp, d, name)
	}
	if err != nil {
		return err
	}
	if !same(tmp) {
		// Another file took the name in between: it goes back.
		if unix.Renameat2(d, tmp, d, name, unix.RENAME_EXCHANGE) != nil {
			return fmt.Errorf("%w, and could not be put back (the copy is at %s beside it)", ErrChanged, tmp)
		}
		return ErrChanged
	}
	return unix.Unlinkat(d, tmp, 0)
}

// copyPrefix begins the name of a copy beside the file it is made of,
// followed by the copying launch's process id.
const copyPrefix = ".claudebox-unlink-"

// RemoveLeftovers removes the copies that launches stopped while copying
// left in the places Find walked, and returns their paths; the copy of a
// launch still running is left to it.
func RemoveLeftovers(all []Found) (removed []string) {
	for _, found := range all {
		for _, rel := range found.leftovers {
			pid, _, _ := strings.Cut(strings.TrimPrefix(path.Base(rel), copyPrefix), "-")
			if n, err := strconv.Atoi(pid); err != nil || n <= 0 || unix.Kill(n, 0) != unix.ESRCH {
				continue
			}
			d, err := untrusted.OpenDir(found.base, path.Dir(rel))
			if err != nil {
				continue
			}
			if unix.Unlinkat(int(d.Fd()), path.Base(rel), 0) == nil {
				removed = append(removed, filepath.Join(found.base, rel))
			}
			d.Close()
		}
	}
	return removed
}

// createBeside creates a new file of the user's alone in the directory d,
// under a name of claudebox's.
func createBeside(d int) (int, string, error) {
	for i := 0; ; i++ {
		name := copyPrefix + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(i)
		fd, err := unix.Openat(d, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == unix.EEXIST && i < 16 {
			continue
		}
		return fd, name, err
	}
}

// copyData copies the first size bytes of src to dst, its holes left
// holes (a sparse file's copy takes no more than it does).
func copyData(src, dst int, size int64) error {
	for off := int64(0); off < size; {
		data, err := unix.Seek(src, off, unix.SEEK_DATA)
		if err == unix.ENXIO {
			break
		}
		if err != nil {
			// No holes to find: all of it is data.
			data = off
		}
		end := size
		if hole, err := unix.Seek(src, data, unix.SEEK_HOLE); err == nil && hole < end {
			end = hole
		}
		if err := copyRange(src, dst, data, end); err != nil {
			return err
		}
		off = end
	}
	return unix.Ftruncate(dst, size)
}

// copyRange copies src's bytes [from, to) to the same place in dst.
func copyRange(src, dst int, from, to int64) error {
	in, out := from, from
	for in < to {
		n, err := unix.CopyFileRange(src, &in, dst, &out, int(min(to-in, 1<<30)), 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return readWrite(src, dst, in, to)
		}
		if n == 0 {
			// The file was cut short while copied.
			return ErrChanged
		}
	}
	return nil
}

// readWrite is copyRange where copy_file_range cannot copy.
func readWrite(src, dst int, from, to int64) error {
	buf := make([]byte, 1<<20)
	for off := from; off < to; {
		n, err := unix.Pread(src, buf[:min(int64(len(buf)), to-off)], off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrChanged
		}
		if _, err := unix.Pwrite(dst, buf[:n], off); err != nil {
			return err
		}
		off += int64(n)
	}
	return nil
}
