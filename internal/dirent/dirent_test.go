package dirent

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadAll: every entry of a directory larger than a buffer's read,
// each once, with its type, "." and ".." left out; each looked up by the
// name as read, and by the name alone.
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	want := map[string]uint8{"sub": unix.DT_DIR, "link": unix.DT_LNK}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "link"))
	for i := range 2000 {
		name := fmt.Sprintf("file-with-a-longer-name-%04d", i)
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		want[name] = unix.DT_REG
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	buf := Buffer()
	defer Release(buf)
	got := map[string]uint8{}
	reads := 0
	for {
		read, err := Read(fd, *buf)
		if err != nil {
			t.Fatal(err)
		}
		if len(read) == 0 {
			break
		}
		reads++
		for name, typ := range read.All() {
			if _, twice := got[string(name)]; twice {
				t.Errorf("%s read twice", name)
			}
			got[string(name)] = typ
			var st unix.Stat_t
			if err := StatAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Errorf("%s as read: %v", name, err)
			}
			if err := StatAt(fd, name[:len(name):len(name)], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Errorf("%s, no NUL after it: %v", name, err)
			}
		}
	}
	if reads < 2 {
		t.Errorf("the directory was read in %d reads, not more than a buffer's", reads)
	}
	if !maps.Equal(got, want) && !allUnknown(got, want) {
		t.Errorf("entries differ: got %d, want %d", len(got), len(want))
	}
	var st unix.Stat_t
	if err := StatAt(fd, []byte("missing"), &st, 0); err != unix.ENOENT {
		t.Errorf("a missing name: %v, want ENOENT", err)
	}
}

// allUnknown: the names are want's, their types unknown (a filesystem
// that does not say them).
func allUnknown(got, want map[string]uint8) bool {
	if len(got) != len(want) {
		return false
	}
	for name, typ := range got {
		if _, ok := want[name]; !ok || typ != unix.DT_UNKNOWN {
			return false
		}
	}
	return true
}
