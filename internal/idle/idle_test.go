package idle

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReleaseKeepsWrites: a read-only mapping of a file holding a page the
// process wrote before making it read-only (as the loader does with the
// pages it relocates) keeps what was written; a clean one reads the
// file's contents again.
func TestReleaseKeepsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 2*os.Getpagesize()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	written, err := unix.Mmap(int(f.Fd()), 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	clean, err := unix.Mmap(int(f.Fd()), int64(os.Getpagesize()), os.Getpagesize(), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	written[0] = 'x'
	if err := unix.Mprotect(written, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	_ = clean[0]
	Release()
	if written[0] != 'x' || clean[0] != 0 {
		t.Errorf("after Release the mappings hold %q and %q, want 'x' and 0", written[0], clean[0])
	}
}
