// Package testfs lays out files for tests.
package testfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Write creates path (and its directories) holding content.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tree makes the named files (or, ending in /, directories) under root;
// "name -> target" makes a symlink.
func Tree(t testing.TB, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		name, target, isLink := strings.Cut(p, " -> ")
		full := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case isLink:
			err = os.Symlink(target, full)
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(full, 0o755)
		default:
			err = os.WriteFile(full, nil, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// CasefoldDir is an empty directory whose names fold case (ext4's, f2fs's
// or tmpfs's casefold attribute, chattr +F), made under the test's
// temporary directory; the test is skipped, saying why, where the
// filesystem cannot make one (no casefold feature, a kernel without
// CONFIG_UNICODE).
func CasefoldDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "folded")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	const casefold = 0x40000000 // FS_CASEFOLD_FL
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags|casefold))
	}
	if err != nil {
		t.Skipf("no directory here can fold case (chattr +F on %s: %v): the filesystem lacks the casefold feature or the kernel CONFIG_UNICODE", dir, err)
	}
	return dir
}
