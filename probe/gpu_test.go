package probe

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// gpu passes the character devices the drivers open, and nothing else
// that lies there: not a regular file, not a link, not a directory.
func TestGPUDevices(t *testing.T) {
	root := t.TempDir()
	if g := gpu(root); len(g.Devices) != 0 || len(g.Missing) != 1 || len(g.Driver) != 0 {
		t.Errorf("an empty host: %+v", g)
	}
	for _, d := range []string{"dev/dri", "dev/nvidia-caps", "sys"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for _, dev := range []string{"dev/nvidia0", "dev/nvidiactl", "dev/nvidia-caps/nvidia-cap1", "dev/dri/renderD128", "dev/kfd"} {
		if err := unix.Mknod(filepath.Join(root, dev), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
			t.Skipf("SKIPPING: cannot make a device node here (root makes one): %v", err)
		}
	}
	os.WriteFile(filepath.Join(root, "dev/nvidia-planted"), nil, 0o666)
	os.Symlink("/dev/null", filepath.Join(root, "dev/dri/card0"))
	g := gpu(root)
	want := []string{"/dev/dri/renderD128", "/dev/kfd", "/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia0", "/dev/nvidiactl"}
	if !slices.Equal(g.Devices, want) || len(g.Missing) != 0 || !slices.Equal(g.Driver, []string{"/sys"}) {
		t.Errorf("GPU = %+v, want devices %q and /sys", g, want)
	}
}
