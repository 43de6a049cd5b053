package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/mount"
)

// gpuDevices are the device nodes GPU drivers open: NVIDIA's (CUDA, its
// control and memory devices, MIG's capabilities), the DRM render and
// card nodes (Mesa, Intel, AMD), and AMD's compute device (ROCm).
var gpuDevices = []string{"/dev/nvidia*", "/dev/nvidia-caps/*", "/dev/dri/card*", "/dev/dri/renderD*", "/dev/kfd"}

// gpuDriver are what the drivers' libraries read beside the devices: /sys,
// where they find the devices and their properties, and the directories
// that hold the drivers where they are not under /usr (NixOS, WSL).
var gpuDriver = []string{"/sys", "/run/opengl-driver", "/usr/lib/wsl"}

// gpu finds the host's GPU device nodes under root ("/" on the host) and
// what their drivers read, and says why one cannot be used.
func gpu(root string) mount.GPU {
	var g mount.GPU
	for _, pattern := range gpuDevices {
		matches, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, m := range matches {
			fi, err := os.Lstat(m)
			if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
				continue
			}
			dev := filepath.Join("/", strings.TrimPrefix(m, root))
			if unix.Access(m, unix.R_OK|unix.W_OK) != nil {
				g.Missing = append(g.Missing, dev+": you may not open it (the video or render group gives access)")
				continue
			}
			g.Devices = append(g.Devices, dev)
		}
	}
	if len(g.Devices) == 0 && len(g.Missing) == 0 {
		g.Missing = append(g.Missing, "no GPU device on this host (/dev/nvidia*, /dev/dri, /dev/kfd)")
	}
	slices.Sort(g.Devices)
	for _, d := range gpuDriver {
		if _, err := os.Stat(filepath.Join(root, d)); err == nil {
			g.Driver = append(g.Driver, d)
		}
	}
	return g
}
