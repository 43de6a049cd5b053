package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// What git names under a link (a directory of the checkout the session
// replaced by a link out of it) is not looked at: git add reads nothing
// through a link, and the host's files there (a FIFO, a sparse file) are
// not the snapshot's to leave out or count. In place, the same are
// refused, and a file is counted for its size. Fails where a status is
// read by the whole path, which follows the link.
func TestAddedSizesFollowsNoLink(t *testing.T) {
	checkout, outside := t.TempDir(), t.TempDir()
	for _, dir := range []string{outside, filepath.Join(checkout, "in")} {
		os.MkdirAll(dir, 0o755)
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
			t.Fatal(err)
		}
		sparse, err := os.Create(filepath.Join(dir, "sparse"))
		if err != nil {
			t.Fatal(err)
		}
		sparse.Truncate(1 << 30)
		sparse.Close()
	}
	os.WriteFile(filepath.Join(checkout, "in", "five"), []byte("five\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(checkout, "linked")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"linked/fifo", "linked/sparse", "in/fifo", "in/sparse", "in/five", "linked", "../x", ""}
	got := addedSizes(context.Background(), checkout, paths)
	want := []int64{unread, unread, refused, refused, 5, unread, unread, unread}
	if !slices.Equal(got, want) {
		t.Errorf("sizes of %q: %v, want %v", paths, got, want)
	}
}
