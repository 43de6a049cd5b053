package hostcmds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// listedBytes runs --list --json in dir: the size it reports of the
// instance of root, with the run's time and peak memory (KiB).
func listedBytes(t *testing.T, h *harness.Host, dir, root string) (int64, time.Duration, int64) {
	t.Helper()
	c := h.Command(dir, nil, "claudebox", "--list", "--json")
	start := time.Now()
	out, err := c.Output()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("--list --json: %v\n%s", err, out)
	}
	var insts []struct {
		Root  string `json:"root"`
		Bytes int64  `json:"bytes"`
	}
	harness.Must(t, json.Unmarshal(out, &insts))
	for _, in := range insts {
		if in.Root == root {
			return in.Bytes, took, c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
		}
	}
	t.Fatalf("--list --json does not list %s:\n%s", root, out)
	return 0, 0, 0
}

// TestReplayReview21ListSizesAllocated: --list and --gc report each
// instance's size, from what the sandbox left in it. The attack, from
// inside: a sparse file of 1 TiB and 400 hard links to a 4 MiB file
// (--list said 2.0 TiB; links and holes cost the disk nothing). Proof:
// the size is what the instance takes on disk, about 4 MiB.
func TestReplayReview21ListSizesAllocated(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		truncate -s 1T $d/sparse
		head -c 4194304 /dev/urandom > $d/real
		for i in $(seq 1 400); do ln $d/real $d/link-$i; done
	`)
	bytes, took, peak := listedBytes(t, h, proj, proj)
	t.Logf("--list: %d bytes, %v, peak %d KiB", bytes, took, peak)
	if bytes < 4<<20 || bytes > 16<<20 {
		t.Errorf("--list sizes the instance at %d bytes, want about the 4 MiB it takes on disk", bytes)
	}
}

// TestReplayReview21DeepInstance: --list sizes an instance by walking it,
// and --gc removes it when its project is gone. The attack, from inside:
// 30,000 directories one in another, 32 MiB at the bottom (--list stopped
// at about 2,000 levels, where the path it opened by grew past the
// kernel's limit: it counted 8 MiB, those levels' own). Proof: --list
// counts the 32 MiB, and --gc, once the project is gone, removes it all.
func TestReplayReview21DeepInstance(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Inside(proj, nil, `python3 -c '
import os
os.chdir(os.path.expanduser("~/.claude/projects"))
for i in range(30000):
    os.mkdir("d")
    os.chdir("d")
with open("bottom", "wb") as f:
    f.write(os.urandom(32 << 20))
'`)
	bytes, took, peak := listedBytes(t, h, h.Home, proj)
	t.Logf("--list: %d bytes, %v, peak %d KiB", bytes, took, peak)
	if bytes < 32<<20 {
		t.Errorf("--list sizes the instance at %d bytes, without the 32 MiB at its bottom", bytes)
	}
	harness.Must(t, os.RemoveAll(proj))
	start := time.Now()
	out, err := h.Bounded(h.Home, "--gc")
	t.Logf("--gc: %v", time.Since(start))
	if err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("--gc: %v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "projects", "*")); len(left) != 0 {
		t.Errorf("--gc left %v", left)
	}
}
