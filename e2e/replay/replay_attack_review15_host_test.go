package replay

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview15UndoSparseSnapshot: --undo read each file its
// snapshot holds whole into memory to compare it (when its size was the
// start's), and every file it restores whole, twice over, before writing
// any. A session leaves a sparse file (no disk used) that the next
// session's snapshot takes, and that session changes one byte of it:
// claudebox --undo --dry-run, which the user runs to see what the session
// did, took the file's size in memory, --undo twice as much, and wrote
// every byte of it to disk (a snapshot's git hashes about 25 GiB of zeros
// in its ten minutes). Now both stream, and a restored file keeps
// its holes. Host-side proof: --undo --dry-run and --undo each end under
// 256 MiB, and the file is back, its size the start's, taking no disk.
func TestReplayReview15UndoSparseSnapshot(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const size = 384 << 20
	h.Inside(proj, nil, "truncate -s 402653184 data.bin")
	taken, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done; rm -f started done
		printf x | dd of=data.bin bs=1 seek=4096 conv=notrunc 2>/dev/null`)
	harness.WaitFor(t, "the second session's undo snapshot", func() bool {
		found, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot"))
		return len(found) > len(taken)
	})
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	plan, rss := peakMemory(t, h, proj, "--undo", "--dry-run")
	if !strings.Contains(plan, "data.bin") {
		t.Fatalf("--undo --dry-run does not name the changed file:\n%s", plan)
	}
	if rss > 256<<10 {
		t.Errorf("--undo --dry-run took %d MiB of memory for the snapshot's sparse file", rss>>10)
	}
	applied, rss := peakMemory(t, h, proj, "--undo", "-y")
	if rss > 256<<10 {
		t.Errorf("--undo took %d MiB of memory to restore the sparse file", rss>>10)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(proj, "data.bin"), &st); err != nil || st.Size != size {
		t.Fatalf("--undo did not restore data.bin (%v, %d bytes):\n%s", err, st.Size, applied)
	}
	if f, err := os.Open(filepath.Join(proj, "data.bin")); err == nil {
		b := make([]byte, 1)
		f.ReadAt(b, 4096)
		f.Close()
		if b[0] != 0 {
			t.Errorf("--undo left the session's byte in data.bin:\n%s", applied)
		}
	}
	if used := st.Blocks * 512; used > 1<<20 {
		t.Errorf("--undo wrote %d MiB of disk for a file of holes", used>>20)
	}
}
