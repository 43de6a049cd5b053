package audit

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
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

// TestRecordRoundTrip: a record holding every field decodes to itself,
// and one cut short anywhere, or with a byte added, does not decode.
func TestRecordRoundTrip(t *testing.T) {
	r := Take(t.TempDir(), time.Now(), []string{".env", ".envrc"}, nil)
	r.Index["/p/.git"] = map[string]uint8{"a": 1, "b/c": 2}
	r.Index["/q/.git"] = map[string]uint8{}
	r.IndexFiles["/p/.git"] = IndexFile{Ino: 7, Size: 1 << 40, Ctime: -3}
	r.Packs["objects/pack/x.pack"] = PackFile{Ino: 9, Size: 12, Ctime: 1e18, Sum: [32]byte{1, 2, 3}}
	r.Reflogs["logs/HEAD"] = Reflog{Ino: 11, Size: 0, Ctime: 5, Sum: [32]byte{31: 9}}
	r.Dev = 1<<64 - 1
	b := r.Encode()
	decoded, err := Decode(b)
	if err != nil || !reflect.DeepEqual(decoded, r) {
		t.Fatalf("the record decoded is not the one encoded: %v\n%+v\n%+v", err, decoded, r)
	}
	fields, files := b[len(recordMagic)+8:len(recordMagic)+8+len(r.appendRest(nil))], b[len(recordMagic)+8+len(r.appendRest(nil)):]
	record := func(fields []byte) []byte {
		return slices.Concat([]byte(recordMagic), binary.LittleEndian.AppendUint64(nil, uint64(len(fields))), fields, files)
	}
	for n := range len(fields) {
		if _, err := Decode(record(fields[:n])); err == nil {
			t.Fatalf("a record whose fields end after %d of %d bytes decodes", n, len(fields))
		}
	}
	if _, err := Decode(record(slices.Concat(fields, []byte{0}))); err == nil {
		t.Error("a record with a byte after its fields decodes")
	}
}
