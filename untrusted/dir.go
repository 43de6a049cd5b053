package untrusted

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenDir opens the directory name beneath dir, with no symlink in name.
func OpenDir(dir, name string) (*os.File, error) {
	fd, err := open(dir, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, name)), nil
}

// MkdirAll makes the directory name beneath dir, and each one above it
// that is missing, one component at a time, never following a symlink: a
// symlink or a file in the way fails it.
func MkdirAll(dir, name string, perm os.FileMode) error {
	cur, err := OpenDir(dir, ".")
	if err != nil {
		return err
	}
	defer func() { cur.Close() }()
	for _, part := range strings.Split(filepath.Clean(name), "/") {
		if part == "." {
			continue
		}
		if part == ".." {
			return &fs.PathError{Op: "mkdir", Path: filepath.Join(dir, name), Err: unix.EXDEV}
		}
		if err := unix.Mkdirat(int(cur.Fd()), part, uint32(perm.Perm())); err != nil && err != unix.EEXIST {
			return &fs.PathError{Op: "mkdir", Path: filepath.Join(dir, name), Err: err}
		}
		next, err := OpenDir(FDPath(cur), part)
		if err != nil {
			return err
		}
		cur.Close()
		cur = next
	}
	return nil
}

// FDPath names the directory f holds open as a path the calls here take
// for dir: it stays that directory wherever it is moved, and whatever then
// stands at the path it was opened by.
func FDPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }

// EachEntry calls fn with each entry of the directory name beneath dir,
// never following a symlink, read a part at a time: the sandbox can leave
// millions there.
func EachEntry(dir, name string, fn func(fs.DirEntry)) error {
	d, err := OpenDir(dir, name)
	if err != nil {
		return err
	}
	defer d.Close()
	for {
		entries, err := d.ReadDir(64)
		for _, e := range entries {
			fn(e)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
