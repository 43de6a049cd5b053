package mount

import (
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// --with-gpu binds exactly the probe's device nodes over the sandbox's
// minimal /dev (after it, or the tmpfs would hide them) and the drivers'
// paths read-only; without it, no device of the host's is bound.
func TestBuildGPU(t *testing.T) {
	in := Inputs{Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Command: []string{"/usr/bin/claude"}}
	for _, line := range mountLines(Build(in)) {
		if strings.HasPrefix(line, string(DevBindTry)) || strings.Contains(line, "/sys") {
			t.Errorf("without --with-gpu: %s", line)
		}
	}
	in.GPU = &GPU{Devices: []string{"/dev/dri/renderD128", "/dev/nvidia0", "/dev/nvidiactl"}, Driver: []string{"/sys"}}
	p := Build(in)
	lines := mountLines(p)
	dev := slices.Index(lines, "--dev  /dev")
	var devices []string
	for i, line := range lines {
		if strings.HasPrefix(line, string(DevBindTry)+" ") {
			if i < dev {
				t.Errorf("%s comes before --dev /dev, which hides it", line)
			}
			devices = append(devices, line)
		}
	}
	want := []string{"--dev-bind-try /dev/dri/renderD128 /dev/dri/renderD128", "--dev-bind-try /dev/nvidia0 /dev/nvidia0", "--dev-bind-try /dev/nvidiactl /dev/nvidiactl"}
	if !slices.Equal(devices, want) {
		t.Errorf("device binds %q, want %q", devices, want)
	}
	if !slices.Contains(lines, "--ro-bind-try /sys /sys") {
		t.Errorf("no read-only /sys in %q", lines)
	}
	if dev < 0 || p.GPU != in.GPU {
		t.Errorf("--dev at %d, plan's GPU %v", dev, p.GPU)
	}
}

// The sandbox's own /proc and /dev, and the devices bound in it, come
// after every other mount but the read-only remounts that end the list:
// bwrap reads the whole mount table again at each bind, so the mounts
// made first are read again at every later one.
func TestBuildDevicesLast(t *testing.T) {
	in := Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p", Command: []string{"/usr/bin/claude"},
		Host: Host{System: []HostPath{{Path: "/usr"}, {Path: Etc}}},
		GPU:  &GPU{Devices: []string{"/dev/nvidia0"}, Driver: []string{"/sys"}},
	}
	lines := mountLines(Build(in))
	proc, dev, gpu := slices.Index(lines, "--proc  /proc"), slices.Index(lines, "--dev  /dev"), slices.Index(lines, "--dev-bind-try /dev/nvidia0 /dev/nvidia0")
	if proc < 0 || dev < proc || gpu < dev {
		t.Fatalf("--proc at %d, --dev at %d, the GPU's device at %d: %q", proc, dev, gpu, lines)
	}
	for i, line := range lines {
		switch {
		case i < proc && (strings.Contains(line, " /proc") || strings.Contains(line, " /dev")):
			t.Errorf("%s comes before --proc", line)
		case i > gpu && !strings.HasPrefix(line, string(RemountRO)+" "):
			t.Errorf("%s comes after the devices", line)
		}
	}
}
