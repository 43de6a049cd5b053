package undo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/dirent"
)

// TestListSettledLeaves: the directories that hold none (most of a large
// tree's), judged by name rather than opened and read, still tell every
// change the sandbox could have made since the list's start: a name moved
// away and back, a directory made and removed in one, a .gitignore made
// or rewritten there, one a level deeper; and a directory swapped for a
// link to another (whose .gitignore is older) between its status and its
// .gitignore's, then put back.
func TestListSettledLeaves(t *testing.T) {
	for _, c := range []struct {
		name     string
		meantime func(checkout string)
		settled  bool
	}{
		{name: "nothing changed", settled: true},
		{name: "moved away and back", meantime: func(checkout string) {
			os.Rename(filepath.Join(checkout, "a", "leaf", "f.go"), filepath.Join(checkout, "f.go"))
			os.Rename(filepath.Join(checkout, "f.go"), filepath.Join(checkout, "a", "leaf", "f.go"))
		}},
		{name: "a directory made and removed", meantime: func(checkout string) {
			os.Mkdir(filepath.Join(checkout, "a", "leaf", "sub"), 0o755)
			os.Remove(filepath.Join(checkout, "a", "leaf", "sub"))
		}},
		{name: ".gitignore rewritten", meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, "a", "leaf", ".gitignore"), []byte("*.o\n"), 0o644)
		}},
		{name: ".gitignore made", meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, "a", "other", ".gitignore"), []byte("*.o\n"), 0o644)
		}},
		{name: "deeper", meantime: func(checkout string) {
			os.WriteFile(filepath.Join(checkout, "b", "c", "deep", ".gitignore"), []byte("*.o\n"), 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			common := t.TempDir()
			checkout := leaves(t)
			since := after(t, t.TempDir(), checkout)
			if c.meantime != nil {
				c.meantime(checkout)
			}
			if got := listSettled(context.Background(), checkout, common, since); got != c.settled {
				t.Errorf("settled: %v, want %v", got, c.settled)
			}
		})
	}
	t.Run("swapped for a link while judged", func(t *testing.T) {
		common := t.TempDir()
		checkout := leaves(t)
		a := filepath.Join(checkout, "a")
		since := after(t, t.TempDir(), checkout)
		// Rewritten in place since, which leaves its directory's status
		// as it was; other has none.
		os.WriteFile(filepath.Join(a, "leaf", ".gitignore"), []byte("*.o\n"), 0o644)
		defer func() { statAt = dirent.StatAt }()
		swapped := false
		statAt = func(fd int, name []byte, st *unix.Stat_t, flags int) error {
			err := dirent.StatAt(fd, name, st, flags)
			if string(name) == "leaf" && !swapped {
				swapped = true
				os.Rename(filepath.Join(a, "leaf"), filepath.Join(a, "moved"))
				os.Symlink("other", filepath.Join(a, "leaf"))
			}
			return err
		}
		if listSettled(context.Background(), checkout, common, since) {
			t.Error("a directory swapped for a link between its reads is taken for settled")
		}
		if !swapped {
			t.Fatal("the leaf was not judged by name")
		}
	})
}

// leaves lays out a checkout whose directories a and b/c hold only
// directories that hold none: a/leaf (with a .gitignore), a/other and
// b/c/deep, each with a file.
func leaves(t *testing.T) string {
	t.Helper()
	checkout := t.TempDir()
	for _, dir := range []string{"a/leaf", "a/other", "b/c/deep"} {
		os.MkdirAll(filepath.Join(checkout, dir), 0o755)
		os.WriteFile(filepath.Join(checkout, dir, "f.go"), []byte("package x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(checkout, "a", "leaf", ".gitignore"), []byte("*.tmp\n"), 0o644)
	return checkout
}

// BenchmarkListSettled is the look, once a late list of ignored files is
// done, at whether anything it depends on changed, in 60,000 files (3,000
// directories of 20 in 30 of 100), in processor time of all its threads
// (cpu-ns/op).
func BenchmarkListSettled(b *testing.B) {
	common, checkout := b.TempDir(), b.TempDir()
	for d := range 3000 {
		dir := filepath.Join(checkout, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("e%02d", d%100))
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644)
		}
	}
	since, err := Mark(b.TempDir(), checkout)
	if err != nil {
		b.Fatal(err)
	}
	for !time.Now().After(since.Add(10 * time.Millisecond)) {
		time.Sleep(time.Millisecond)
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	for b.Loop() {
		if !listSettled(context.Background(), checkout, common, since) {
			b.Fatal("taken for changed")
		}
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := func(r unix.Rusage) int64 { return r.Utime.Nano() + r.Stime.Nano() }
	b.ReportMetric(float64(cpu(after)-cpu(before))/float64(b.N), "cpu-ns/op")
}
