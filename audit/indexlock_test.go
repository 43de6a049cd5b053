package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/paths"
)

// TestSweepIndexLocks: the lock a rewrite recorded goes once its writer
// is gone (here, a record no process holds), if the same file still
// stands as index.lock; a lock the host's git took since (another file),
// and one whose writer still runs, stay.
func TestSweepIndexLocks(t *testing.T) {
	_, gitDir := gitIndexIn(t, 2, "sha1", false)
	lock := filepath.Join(gitDir, "index.lock")
	records := filepath.Join(t.TempDir(), "index-locks")
	must(t, os.MkdirAll(records, 0o700))
	recordOf := func(name, content string) {
		t.Helper()
		must(t, os.WriteFile(lock, []byte(content), 0o644))
		f, err := os.Open(lock)
		must(t, err)
		defer f.Close()
		r, err := identify(int(f.Fd()), gitDir, []byte(content))
		must(t, err)
		b, _ := json.Marshal(r)
		must(t, os.WriteFile(filepath.Join(records, name+recordSuffix), b, 0o600))
	}

	recordOf("dead", "the audit's index")
	if got := SweepIndexLocks(records); !slices.Equal(got, []string{lock}) || paths.Exists(lock) {
		t.Errorf("a dead writer's lock: swept %v, still there: %v", got, paths.Exists(lock))
	}
	if left, _ := os.ReadDir(records); len(left) > 0 {
		t.Errorf("records left: %v", left)
	}

	// The host's git, after the writer died, wrote the same bytes on the
	// same inode (a reused one, and index.skipHash's zero checksum): only
	// the file's time tells it apart.
	recordOf("rewritten", "the audit's index")
	later := time.Now().Add(time.Second)
	must(t, os.Chtimes(lock, later, later))
	if got := SweepIndexLocks(records); len(got) > 0 || !paths.Exists(lock) {
		t.Errorf("the host's git's lock on the same inode: swept %v, still there: %v", got, paths.Exists(lock))
	}
	must(t, os.Remove(lock))
	left, _ := os.ReadDir(records)
	for _, e := range left {
		os.Remove(filepath.Join(records, e.Name()))
	}

	recordOf("replaced", "the audit's index")
	must(t, os.Remove(lock))
	// The host's git, after the writer died: maybe on the same inode.
	must(t, os.WriteFile(lock, []byte("the host's index!"), 0o644))
	if got := SweepIndexLocks(records); len(got) > 0 || !paths.Exists(lock) {
		t.Errorf("the host's git's lock: swept %v, still there: %v", got, paths.Exists(lock))
	}
	must(t, os.Remove(lock))

	d, err := openRoot(gitDir)
	must(t, err)
	defer d.Close()
	held, err := IndexLocks{Dir: records}.lockIndex(int(d.Fd()), gitDir, []byte("index"))
	must(t, err)
	if got := SweepIndexLocks(records); len(got) > 0 || !paths.Exists(lock) {
		t.Errorf("a running writer's lock: swept %v, still there: %v", got, paths.Exists(lock))
	}
	held.release()
	unix.Unlink(lock)
	if left, _ := os.ReadDir(records); len(left) > 0 {
		t.Errorf("records left after release: %v", left)
	}
}

// TestIndexLockTakenMeanwhile: while the exit audit holds git's lock on an
// index, another process may remove it and take the lock itself (the
// host's git). The audit neither renames that lock over the index nor
// removes it: the index stays as it was, the other lock stands, and the
// entries are returned with the reason.
func TestIndexLockTakenMeanwhile(t *testing.T) {
	_, gitDir := gitIndexIn(t, 2, "sha1", false)
	index, lock := filepath.Join(gitDir, "index"), filepath.Join(gitDir, "index.lock")
	before, err := os.ReadFile(index)
	must(t, err)
	taken := func() {
		must(t, os.Remove(lock))
		must(t, os.WriteFile(lock, []byte("the host's git's lock"), 0o644))
	}
	left, err := ShowAgain([]Hidden{{Repo: filepath.Dir(gitDir), Path: "z", gitDir: gitDir, bits: assumeUnchanged}}, IndexLocks{Held: taken})
	if len(left) != 1 || err == nil {
		t.Errorf("left %v, %v; want the entry, and why", left, err)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Errorf("the index became %.40q", after)
	}
	if b, _ := os.ReadFile(lock); string(b) != "the host's git's lock" {
		t.Errorf("the other process's lock became %q", b)
	}

	// The audit's own removal of its lock (the index changed meanwhile)
	// leaves another's too.
	must(t, os.Remove(lock))
	d, err := openRoot(gitDir)
	must(t, err)
	defer d.Close()
	held, err := IndexLocks{}.lockIndex(int(d.Fd()), gitDir, []byte("index"))
	must(t, err)
	taken()
	held.remove()
	if b, _ := os.ReadFile(lock); string(b) != "the host's git's lock" {
		t.Errorf("the audit removed another's lock: now %q", b)
	}
}

// TestIndexLockWithoutProc: where /proc is not mounted, the lock is still
// made, whole, with what the audit wrote.
func TestIndexLockWithoutProc(t *testing.T) {
	was := procFD
	procFD = filepath.Join(t.TempDir(), "no-proc") + "/"
	t.Cleanup(func() { procFD = was })
	gitDir := t.TempDir()
	d, err := openRoot(gitDir)
	must(t, err)
	defer d.Close()
	held, err := IndexLocks{Dir: t.TempDir()}.lockIndex(int(d.Fd()), gitDir, []byte("the new index"))
	if err != nil {
		t.Fatalf("without /proc: %v", err)
	}
	defer held.remove()
	if b, _ := os.ReadFile(filepath.Join(gitDir, "index.lock")); string(b) != "the new index" {
		t.Errorf("the lock holds %q", b)
	}
}

// TestIndexLockByNameRecordsWholeFile: where the lock is made by name
// (no unnamed file, or no way to link one), its record names the file as written (its modification time and
// size), so that a sweep after its writer died finds it the same file.
// Recorded before the write, a large index's lock was another file by its
// time, and stayed for good.
func TestIndexLockByNameRecordsWholeFile(t *testing.T) {
	gitDir, records := t.TempDir(), t.TempDir()
	d, err := openRoot(gitDir)
	must(t, err)
	defer d.Close()
	content := bytes.Repeat([]byte("index entry "), 4<<20) // 48 MiB: its write outlasts a clock tick
	held, err := IndexLocks{Dir: records}.createLock(int(d.Fd()), gitDir, content)
	must(t, err)
	defer held.remove()
	names, _ := filepath.Glob(filepath.Join(records, "*"+recordSuffix))
	if len(names) != 1 {
		t.Fatalf("records: %q", names)
	}
	b, err := os.ReadFile(names[0])
	must(t, err)
	var r lockRecord
	must(t, json.Unmarshal(b, &r))
	var st unix.Stat_t
	must(t, unix.Stat(filepath.Join(gitDir, "index.lock"), &st))
	if st.Mtim.Nano() != r.Mtime || st.Size != r.Size {
		t.Errorf("the record names mtime %d, size %d; the lock has %d, %d", r.Mtime, r.Size, st.Mtim.Nano(), st.Size)
	}
}
