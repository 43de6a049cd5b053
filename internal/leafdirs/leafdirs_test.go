package leafdirs

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A status one look read is the other's, once: the second look takes it
// without reading (the directory removed meanwhile still gives the first
// read), and a third reads anew. A nil Statuses reads each time.
func TestStatusTakenOnce(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var s Statuses
	first, err := s.At(fd, "", "a")
	if err != nil || first.Mode&unix.S_IFMT != unix.S_IFDIR || first.Nlink != 3 || first.HoldsNoDir() {
		t.Fatalf("first read: %+v, %v", first, err)
	}
	if err := os.Remove(filepath.Join(root, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if taken, err := s.At(fd, "", "a"); err != nil || taken != first {
		t.Errorf("taken: %+v, %v; want the first read %+v", taken, err, first)
	}
	if again, err := s.At(fd, "", "a"); err != nil || !again.HoldsNoDir() {
		t.Errorf("read anew: %+v, %v; want a directory holding none", again, err)
	}
	if len(s.read) != 1 {
		t.Errorf("kept %d statuses, want the last read's", len(s.read))
	}
	if _, err := (*Statuses)(nil).At(fd, "", "gone"); err == nil {
		t.Error("a nil Statuses read a missing entry")
	}
	// A symlink is its own status, not its target's.
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if l, err := (*Statuses)(nil).At(fd, "", "link"); err != nil || l.Mode&unix.S_IFMT != unix.S_IFLNK || l.HoldsNoDir() {
		t.Errorf("link: %+v, %v", l, err)
	}
}
