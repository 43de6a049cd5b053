package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// emptyDirs makes n empty directories under root, a thousand to a parent.
func emptyDirs(t testing.TB, root string, n int) {
	for i := range n {
		must(t, os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i/1000), fmt.Sprintf("e%d", i)), 0o755))
	}
}

// heldBy is the heap that what take returns holds.
func heldBy[T any](take func() T) (T, int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := take()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return v, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestRecordEmptyDirectories: the record of a tree of empty directories
// (a sandbox makes them by the hundred thousand, and the next session's
// supervisor holds their record for the whole session) holds under 100
// bytes a directory, paths of 10 bytes; maps of paths held 220. Encoded
// and decoded, it is the same record.
func TestRecordEmptyDirectories(t *testing.T) {
	root := t.TempDir()
	const n = 10_000
	emptyDirs(t, root, n)
	since := mark(t, t.TempDir())
	r, held := heldBy(func() *Snapshot { return Take(root, since, nil, nil) })
	t.Logf("%d bytes a directory", held/n)
	if held/n > 100 {
		t.Errorf("the record holds %d bytes a directory", held/n)
	}
	if _, ok := r.files.inode(filepath.Join("d3", "e3999")); !ok {
		t.Error("a directory is not in the record")
	}
	decoded, err := Decode(r.Encode())
	if err != nil || !reflect.DeepEqual(decoded, r) {
		t.Errorf("the record decoded is not the one encoded: %v", err)
	}
	if _, err := Decode(r.Encode()[:100]); err == nil {
		t.Error("a record cut short decodes")
	}
}

// processorTime is the processor time the process used, its own and the
// kernel's for it: a shared machine's load stretches the wall clock's.
func processorTime() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTakeEmptyDirectories is the record the next launch takes of
// 100,000 empty directories a session made, and the one after, built on
// it: the processor time, and the heap the record holds, a directory.
func BenchmarkTakeEmptyDirectories(b *testing.B) {
	root := b.TempDir()
	const n = 100_000
	emptyDirs(b, root, n)
	since := mark(b, b.TempDir())
	for _, name := range []string{"first", "from-record"} {
		b.Run(name, func(b *testing.B) {
			var base *Snapshot
			if name == "from-record" {
				base, _ = Decode(Take(root, since, nil, nil).Encode())
			}
			var held int64
			cpu := processorTime()
			for b.Loop() {
				_, held = heldBy(func() *Snapshot { return Take(root, since, nil, base) })
			}
			b.ReportMetric(float64(held)/n, "B/dir")
			b.ReportMetric(float64((processorTime()-cpu).Nanoseconds())/float64(b.N)/n, "cpu-ns/dir")
		})
	}
}

// TestTakeBoundCountsBase: a record built on an earlier one counts what
// it keeps of that one towards its bound, so that it is no larger than
// one read whole: else each session could add a bound's worth of
// directories, and the records grow past it. Taken again with room for 60
// entries, the 40 kept from the base and the 40 new ones fill it before the
// directory holding the new ones is recorded.
func TestTakeBoundCountsBase(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		must(t, os.MkdirAll(filepath.Join(root, "a", fmt.Sprintf("d%d", i)), 0o755))
	}
	base := Take(root, mark(t, t.TempDir()), nil, nil)
	for i := range 40 {
		must(t, os.MkdirAll(filepath.Join(root, "a", "d0", "b", fmt.Sprintf("e%d", i)), 0o755))
	}
	since := mark(t, t.TempDir())
	defer func(was int64) { maxEntries = was }(maxEntries)
	maxEntries = 60
	r := Take(root, since, nil, base)
	if _, ok := r.files.listing("a"); !ok {
		t.Error("the record lacks what it kept from the base")
	}
	if _, ok := r.files.listing(filepath.Join("a", "d0", "b")); ok {
		t.Error("the record went on past its bound")
	}
}
