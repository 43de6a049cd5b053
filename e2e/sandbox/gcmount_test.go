package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestGCKeepsAdHocMount: a project on a filesystem mounted ad hoc (here a
// tmpfs at ~/mnt/x: not in fstab, not under /media or /mnt) had a session;
// once that filesystem is unmounted, --gc keeps its instance and --list
// calls it unmounted, because the launch recorded what held the root.
func TestGCKeepsAdHocMount(t *testing.T) {
	h := harness.NewHost(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("mounting a tmpfs needs root, which CI is")
		}
		t.Skip("SKIPPING: mounting a tmpfs needs root")
	}
	mnt := filepath.Join(h.Home, "mnt", "x")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	opts := "mode=755,uid=" + strconv.Itoa(h.UID) + ",gid=" + strconv.Itoa(h.GID)
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, opts); err != nil {
		t.Fatalf("mount: %v", err)
	}
	mounted := true
	defer func() {
		if mounted {
			unix.Unmount(mnt, unix.MNT_DETACH)
		}
	}()
	proj := filepath.Join(mnt, "proj")
	h.Write(filepath.Join(proj, "README"), "on a stick\n")
	h.Run(proj, nil, "claudebox", "--shell", "-c", "true")
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	if err := unix.Unmount(mnt, 0); err != nil {
		t.Fatalf("umount: %v", err)
	}
	mounted = false

	out, err := h.Command(h.Home, nil, "claudebox", "--gc").CombinedOutput()
	if err != nil || strings.Contains(string(out), "removed "+inst) || !paths.Exists(filepath.Join(inst, instance.RootFile)) {
		t.Fatalf("--gc removed the instance of a project whose filesystem is only unmounted: %v\n%s", err, out)
	}
	list := h.Run(h.Home, nil, "claudebox", "--list")
	if !strings.Contains(list, "unmounted") {
		t.Errorf("--list does not call it unmounted:\n%s", list)
	}
}
