package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Output is a process's output, read while it is written.
type Output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// Globs lists the names in dir that match pattern.
func Globs(dir, pattern string) []string {
	found, _ := filepath.Glob(filepath.Join(dir, pattern))
	for i, f := range found {
		found[i] = filepath.Base(f)
	}
	return found
}

// SmallStateDisk is a host with a one-file project whose ~/.claudebox is
// a small filesystem of its own (a 16 MiB tmpfs), for a test to fill.
func SmallStateDisk(t *testing.T) (h *Host, proj, state string) { return StateDisk(t, 16) }

// StateDisk is SmallStateDisk with a tmpfs of mib MiB: the undo store
// keeps 16 MiB of its disk free, and takes no file's content on a smaller
// one.
func StateDisk(t *testing.T, mib int) (h *Host, proj, state string) {
	h = NewHost(t)
	proj = filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	state = filepath.Join(h.Home, ".claudebox")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", state, "tmpfs", 0, fmt.Sprintf("size=%dm,mode=700", mib)); err != nil {
		t.Skipf("cannot mount a tmpfs for the state directory (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(state, syscall.MNT_DETACH) })
	h.Chown()
	return h, proj, state
}
