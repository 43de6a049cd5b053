package replay

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// --with-gpu in the real sandbox: /sys is there read-only for the
// drivers, /dev holds the host's GPU nodes and otherwise only the minimal
// devices; on a host without a GPU, the launch says so and goes on.
func TestReplayWithGPU(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	c := h.Command(proj, nil, "claudebox", "--with-gpu", "--shell", "-c", `
		test -d /sys/class && echo "sys visible"
		touch /sys/x 2>/dev/null && echo "SYS WRITABLE" || echo "sys read-only"
		ls /dev | tr '\n' ' '; echo
		command -v nvidia-smi >/dev/null && nvidia-smi -L
		true`)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"sys visible", "sys read-only"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q:\n%s", want, out)
		}
	}
	host, _ := os.ReadDir("/dev")
	for _, e := range host {
		name := e.Name()
		gpu := strings.HasPrefix(name, "nvidia") || name == "dri" || name == "kfd"
		if !gpu && !strings.Contains(" null zero full random urandom tty console pts ptmx shm fd stdin stdout stderr core mqueue ", " "+name+" ") &&
			strings.Contains(string(out), " "+name+" ") {
			t.Errorf("the host's /dev/%s is inside:\n%s", name, out)
		}
	}
	if _, err := os.Stat("/dev/nvidia0"); err != nil {
		if !strings.Contains(string(out), "claudebox: --with-gpu: no GPU device on this host") {
			t.Errorf("no word of the missing GPU:\n%s", out)
		}
		t.Log("no GPU on this machine: checked the sandbox's /dev and /sys, not a device")
	} else if _, err := exec.LookPath("nvidia-smi"); err == nil && !strings.Contains(string(out), "GPU 0:") {
		t.Errorf("nvidia-smi inside lists no GPU:\n%s", out)
	}
}
