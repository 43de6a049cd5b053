package hostcmdslate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview23UndoStoreGrows: each launch's undo snapshot copies
// the project's new files into ~/.claudebox/undo; only the newest 10
// snapshots are kept, but the objects of the older ones stayed. The
// attack, from inside: every session replaces a large file of random
// bytes by a new one, and the store grew by its size at every launch,
// for good, until ~/.claudebox's disk was full and every launch of every
// project refused. Host-side proof: after 12 sessions the store holds no
// more large objects than the kept snapshots (each holding one); and the
// sandbox cannot write the store.
func TestReplayReview23UndoStoreGrows(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	store := filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(proj))
	const sessions = 13
	for i := range sessions {
		// The sleep lets the snapshot, taken beside the session, end first
		// (on a loaded machine, a launch's may not: the last one's does).
		wait := "1"
		if i == sessions-1 {
			wait = "5"
		}
		h.Inside(proj, nil, "sleep "+wait+"; touch ~/.claudebox/undo/planted "+store+"/planted 2>/dev/null; rm -f big*.bin; head -c 8388608 /dev/urandom > big"+strconv.Itoa(i)+".bin")
	}
	if _, err := os.Lstat(filepath.Join(store, "planted")); err == nil {
		t.Error("a session wrote into its project's undo store")
	}
	snapshots, _ := filepath.Glob(filepath.Join(store, "*.snapshot"))
	large := 0
	filepath.WalkDir(filepath.Join(store, "git", "objects"), func(path string, d fs.DirEntry, err error) error {
		if fi, ferr := os.Lstat(path); err == nil && ferr == nil && fi.Mode().IsRegular() && fi.Size() > 4<<20 {
			large++
		}
		return nil
	})
	// One dropped snapshot's may wait for the next prune.
	if large > len(snapshots)+1 {
		t.Errorf("after %d sessions each leaving a new 8 MiB file, the undo store holds %d objects over 4 MiB for its %d snapshots", sessions, large, len(snapshots))
	}
}
