package undo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSettledLeafAllocatesNothing: the late list's look at a directory
// holding none runs once for each of a flood's directories, beside the
// start's record in the supervisor: a path or a status made on the heap
// for each (300,000 empty directories, 20 MB of garbage) held the
// supervisor above its bound until it collected (e2e/flood's
// TestReplayReview19EmptyDirectories, 56 MiB against 48).
func TestSettledLeafAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "leaf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "leaf", ".gitignore"), []byte("*.o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	since := time.Now().Add(time.Hour)
	before := func(sx *unix.Stat_t) bool { return time.Unix(sx.Ctim.Unix()).Before(since) }
	// As a directory's listing gives it: a NUL after the name.
	name := []byte("leaf\x00")[:4]
	st := new(leafStatuses)
	if leaf, settled := settledLeaf(fd, name, before, st); !leaf || !settled {
		t.Fatalf("leaf %v, settled %v: want both", leaf, settled)
	}
	if n := testing.AllocsPerRun(100, func() { settledLeaf(fd, name, before, st) }); n != 0 {
		t.Errorf("%v allocations a directory, want none", n)
	}
}
