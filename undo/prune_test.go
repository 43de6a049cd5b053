package undo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
)

// pruneStore is a project with snapshots of two contents of its
// untracked file, and an object of the store no snapshot holds.
func pruneStore(t *testing.T) (st store, kept, orphan string, checkout string) {
	t.Helper()
	p := repo(t, 3, 3)
	state := t.TempDir()
	for i, content := range []string{"first\n", "second\n"} {
		os.WriteFile(filepath.Join(p.Checkout, "untracked.txt"), []byte(content), 0o644)
		// Older than the store's index, which git then trusts for it.
		old := time.Now().Add(time.Duration(i-2) * time.Hour)
		os.Chtimes(filepath.Join(p.Checkout, "untracked.txt"), old, old)
		if _, err := Take(context.Background(), state, p, time.Now().Add(time.Duration(i)*time.Second), time.Now().Add(time.Hour), nil, false); err != nil {
			t.Fatal(err)
		}
	}
	st = storeOf(state, p.Root)
	hash := func(content string) string {
		out, err := st.git(context.Background(), st.dir, os.DevNull, strings.NewReader(content), "hash-object", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	return st, hash("second\n"), hash("no snapshot's\n"), p.Checkout
}

// The objects no kept snapshot holds go. A snapshot's tree whose
// subtree the project's objects no longer hold (a session removed it)
// does not stop that: its snapshot's objects go, and so does the store's
// index of it (its blobs gone, git add would take the file for hashed,
// and every later snapshot would fail); the next snapshot is taken.
func TestPruneObjects(t *testing.T) {
	st, kept, orphan, checkout := pruneStore(t)
	st.pruneObjects(context.Background())
	if st.hasObject(orphan) || !st.hasObject(kept) {
		t.Fatalf("after a prune, the store holds the orphan: %v, the kept snapshot's blob: %v", st.hasObject(orphan), st.hasObject(kept))
	}
	out, err := exec.Command("git", "-C", checkout, "rev-parse", "HEAD:pkg1").Output()
	if err != nil {
		t.Fatal(err)
	}
	sub := strings.TrimSpace(string(out))
	if err := os.Remove(filepath.Join(checkout, ".git", "objects", sub[:2], sub[2:])); err != nil {
		t.Fatal(err)
	}
	st.pruneObjects(context.Background())
	if st.hasObject(kept) {
		t.Error("the blob of snapshots whose trees git cannot walk was kept")
	}
	p, err := instance.Resolve(checkout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Take(context.Background(), filepath.Dir(filepath.Dir(st.dir)), p, time.Now().Add(time.Minute), time.Now().Add(time.Hour), nil, false); err != nil {
		t.Errorf("the snapshot after a prune: %v", err)
	}
}

// A FIFO among the objects git would read stops nothing: pruneObjects
// runs no git.
func TestPruneObjectsFIFO(t *testing.T) {
	st, _, orphan, checkout := pruneStore(t)
	if err := syscall.Mkfifo(filepath.Join(checkout, ".git", "objects", "ab", "cdef"), 0o600); err != nil {
		os.MkdirAll(filepath.Join(checkout, ".git", "objects", "ab"), 0o755)
		if err := syscall.Mkfifo(filepath.Join(checkout, ".git", "objects", "ab", "cdef"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st.pruneObjects(context.Background())
	if !st.hasObject(orphan) {
		t.Error("git ran on a store whose objects hold a FIFO")
	}
}

// BenchmarkPruneObjects: the prune after a snapshot dropped one, in a
// checkout of 60,000 committed files and one untracked, with keep
// snapshots of it; cpu-ms is the processor time of its git.
func BenchmarkPruneObjects(b *testing.B) {
	p := repo(b, 3000, 20)
	state := b.TempDir()
	now := time.Now()
	for i := range keep {
		os.WriteFile(filepath.Join(p.Checkout, "untracked.txt"), []byte(strconv.Itoa(i)), 0o644)
		if _, err := Take(context.Background(), state, p, now.Add(time.Duration(i)*time.Second), now.Add(time.Hour), nil, false); err != nil {
			b.Fatal(err)
		}
	}
	st := storeOf(state, p.Root)
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	for i := 0; b.Loop(); i++ {
		st.git(context.Background(), st.dir, os.DevNull, strings.NewReader("dropped "+strconv.Itoa(i)), "hash-object", "-w", "--stdin")
		st.pruneObjects(context.Background())
	}
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}
