package probe

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRuntimeDir: claudebox's directory in the runtime directory is used
// when that is a directory the user owns and alone may enter, and not when
// it is unset, relative, open to others, a link or gone: then the one in
// /dev/shm is, where that may be (TestSharedMemoryDir).
func TestRuntimeDir(t *testing.T) {
	private := t.TempDir()
	os.Chmod(private, 0o700)
	open := t.TempDir()
	os.Chmod(open, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(private, link)
	fallback := sharedMemoryDir(sharedMemory)
	for dir, want := range map[string]string{
		private:           filepath.Join(private, "claudebox"),
		"":                fallback,
		"run/user":        fallback,
		open:              fallback,
		link:              fallback,
		private + "/gone": fallback,
	} {
		getenv := func(string) string { return dir }
		if got := RuntimeDir(getenv); got != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: %q, want %q", dir, got, want)
		}
	}
}

// TestSharedMemoryDir: the directory in /dev/shm is taken where it is not
// yet made or is the user's own private directory, and not where it is a
// link, open to others or another user's, nor on a filesystem that is not
// a tmpfs.
func TestSharedMemoryDir(t *testing.T) {
	var fs unix.Statfs_t
	if unix.Statfs(sharedMemory, &fs) != nil || fs.Type != unix.TMPFS_MAGIC || fs.Bavail*uint64(fs.Bsize) < sharedMemoryRoom {
		t.Skip("no tmpfs with room at " + sharedMemory)
	}
	shm, err := os.MkdirTemp(sharedMemory, "probe-test")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	dir := sharedMemoryDir(shm)
	if filepath.Dir(dir) != shm {
		t.Fatalf("not yet made: %q, want a directory in %s", dir, shm)
	}
	if got := sharedMemoryDir(t.TempDir()); got != "" {
		t.Errorf("on a disk: %q, want none", got)
	}
	other := filepath.Join(t.TempDir(), "other")
	os.Mkdir(other, 0o700)
	for _, c := range []struct {
		name string
		make func() error
		want string
	}{
		{"the user's own", func() error { return os.Mkdir(dir, 0o700) }, dir},
		{"open to others", func() error { return os.Chmod(dir, 0o755) }, ""},
		{"a link to a private directory", func() error { return errors.Join(os.Remove(dir), os.Symlink(other, dir)) }, ""},
		{"a file", func() error { return errors.Join(os.Remove(dir), os.WriteFile(dir, nil, 0o600)) }, ""},
	} {
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		if got := sharedMemoryDir(shm); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if os.Getuid() == 0 {
		os.Remove(dir)
		os.Mkdir(dir, 0o700)
		os.Chown(dir, 12345, 12345)
		if got := sharedMemoryDir(shm); got != "" {
			t.Errorf("another user's: %q, want none", got)
		}
	}
}

// TestCopiesDirs: a launch sweeps killed sessions' copies both in the
// runtime directory and in /dev/shm's, whichever it writes in now (a cron
// job's session, without $XDG_RUNTIME_DIR, left them in /dev/shm, and a
// terminal's launches never looked there), and only in the user's own.
func TestCopiesDirs(t *testing.T) {
	runtime, shm := t.TempDir(), t.TempDir()
	os.Chmod(runtime, 0o700)
	withRuntime := func(string) string { return runtime }
	without := func(string) string { return "" }
	inShm := sharedMemoryName(shm)
	if inShm == "" {
		t.Skip("no pid namespace to read")
	}
	check := func(what string, getenv func(string) string, want ...string) {
		t.Helper()
		if got := copiesDirs(getenv, shm); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
	}
	check("none made in /dev/shm", withRuntime, filepath.Join(runtime, "claudebox"))
	if err := os.Mkdir(inShm, 0o700); err != nil {
		t.Fatal(err)
	}
	check("one made in /dev/shm", withRuntime, filepath.Join(runtime, "claudebox"), inShm)
	check("no runtime directory", without, inShm)
	os.Chmod(inShm, 0o755)
	check("/dev/shm's open to others", without)
	os.Remove(inShm)
	os.Symlink(runtime, inShm)
	check("/dev/shm's a link", without)
}
