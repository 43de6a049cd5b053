package secrets

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestDirCopiesSharedMemory: with no $XDG_RUNTIME_DIR (a cron job, CI, a
// login without systemd), the private copies of ~/.claude's directories
// are written on the /dev/shm tmpfs, in a directory of the user's alone,
// rather than on the disk: the sandbox sees neither that directory (its
// /dev is its own) nor a way to write the copies, and the session takes
// its copy away at its end.
func TestDirCopiesSharedMemory(t *testing.T) {
	var fs unix.Statfs_t
	if unix.Statfs("/dev/shm", &fs) != nil || fs.Type != unix.TMPFS_MAGIC || fs.Bavail*uint64(fs.Bsize) < 256<<20 {
		t.Skip("no tmpfs with 256 MiB free at /dev/shm")
	}
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".claude", "agents", "shm-reviewer.md"), "---\nname: shm-reviewer\n---\nAS-LAUNCHED\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, seen := filepath.Join(proj, "ready"), filepath.Join(proj, "seen")
	var copies []string
	host := harness.WhenReady(ready, seen, func() error {
		copies, _ = filepath.Glob("/dev/shm/claudebox-" + strconv.Itoa(h.UID) + "-*/*.claude/*/shm-reviewer.md")
		for _, c := range copies {
			dir := filepath.Dir(filepath.Dir(filepath.Dir(c)))
			fi, err := os.Lstat(dir)
			if err != nil {
				return err
			}
			if st := fi.Sys().(*syscall.Stat_t); fi.Mode() != os.ModeDir|0o700 || int(st.Uid) != h.UID {
				t.Errorf("%s: mode %v, owner %d, want the user's alone", dir, fi.Mode(), st.Uid)
			}
		}
		return nil
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e seen ] && break; sleep 0.1; done
		echo shm: $(ls -A /dev/shm)
		cat ~/.claude/agents/shm-reviewer.md
		echo planted > ~/.claude/agents/shm-reviewer.md 2>/dev/null && echo writable || true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	if len(copies) == 0 {
		t.Fatalf("no copy of ~/.claude/agents in /dev/shm during the session:\n%s", out)
	}
	if !strings.Contains(out, "shm:\n") || !strings.Contains(out, "AS-LAUNCHED") || strings.Contains(out, "writable") {
		t.Errorf("inside, want an empty /dev/shm and the copy as launched, read-only:\n%s", out)
	}
	for _, c := range copies {
		if _, err := os.Lstat(filepath.Dir(filepath.Dir(c))); err == nil {
			t.Errorf("%s is left after the session", filepath.Dir(filepath.Dir(c)))
		}
	}
}
