package audit

import (
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
	release, err := IndexLocks{Dir: records}.lockIndex(int(d.Fd()), gitDir, []byte("index"))
	must(t, err)
	if got := SweepIndexLocks(records); len(got) > 0 || !paths.Exists(lock) {
		t.Errorf("a running writer's lock: swept %v, still there: %v", got, paths.Exists(lock))
	}
	release()
	unix.Unlink(lock)
	if left, _ := os.ReadDir(records); len(left) > 0 {
		t.Errorf("records left after release: %v", left)
	}
}
