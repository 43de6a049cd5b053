package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayCopySwappedForLink: a launch checks the project's .mcp.json and
// .claude/settings*.json (regular files: the sandbox gets private copies)
// and copies them later. A session of an enclosing project (~/code around
// ~/code/a/x), which can write this one, swaps them in between (here while
// the launch asks for approval) for links: .mcp.json and
// settings.local.json to FIFOs of its own, which tell it when the launch
// reads each, settings.json to the user's SSH key. When the launch has read
// the key, it puts regular files back, so that bwrap mounts the copies.
// Host-side proof: the key never shows inside; the launch refuses, naming
// the file.
func TestReplayCopySwappedForLink(t *testing.T) {
	h := harness.NewHost(t)
	outer := filepath.Join(h.Home, "code", "a")
	proj := filepath.Join(outer, "x")
	h.GitRepo(proj)
	mcp := filepath.Join(proj, ".mcp.json")
	settings := filepath.Join(proj, ".claude", "settings.json")
	local := filepath.Join(proj, ".claude", "settings.local.json")
	for _, f := range []string{mcp, settings, local} {
		h.Write(f, "{}\n")
	}
	h.Write(filepath.Join(proj, ".claudebox.toml"), "env = [\"TOOL=1\"]\n")
	key := filepath.Join(h.Home, ".ssh", "id_ed25519")
	h.Write(key, "-----BEGIN OPENSSH PRIVATE KEY-----\nSWAPPEDKEYMATERIAL\n")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-s", "x", "-x", "150", "-y", "30",
		`claudebox --shell -c 'echo "copy: $(cat .claude/settings.json)"'; echo EXIT=$?; sleep 30`)
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "x"), func(s string) bool { return strings.Contains(s, "[y/N]") }, "the approval question")

	// The enclosing session's moves, each a rename over the name.
	swap := func(path string, make func(string) error) {
		t.Helper()
		if err := make(path + ".new"); err != nil {
			t.Fatal(err)
		}
		os.Lchown(path+".new", h.UID, h.GID)
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target string) func(string) error {
		return func(p string) error { return os.Symlink(target, p) }
	}
	regular := func(p string) error { return os.WriteFile(p, []byte("{}\n"), 0o644) }
	fifo1, fifo2 := filepath.Join(outer, "f1"), filepath.Join(outer, "f2")
	for _, f := range []string{fifo1, fifo2} {
		if err := syscall.Mkfifo(f, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chown(f, h.UID, h.GID)
	}
	swap(mcp, link(fifo1))
	swap(settings, link(key))
	swap(local, link(fifo2))
	tmux("send-keys", "-t", "x", "y", "Enter")
	// read waits until the launch opens fifo to read it, then swaps path
	// back and lets the read end; false when the launch ended first.
	read := func(fifo string, back ...string) bool {
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if errors.Is(err, syscall.ENXIO) {
				if strings.Contains(tmux("capture-pane", "-p", "-t", "x"), "EXIT=") {
					return false
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range back {
				swap(p, regular)
			}
			w.Write([]byte("{}\n"))
			w.Close()
			return true
		}
		t.Fatalf("the launch neither read %s nor ended", fifo)
		return false
	}
	if read(fifo1, mcp) {
		t.Errorf("the launch read its copy of %s through a link to a FIFO", mcp)
		read(fifo2, settings, local)
	}
	screen := harness.WaitScreen(t, harness.TmuxTarget(tmux, "x"), func(s string) bool { return strings.Contains(s, "EXIT=") }, "the launch to end")
	if strings.Contains(screen, "SWAPPEDKEYMATERIAL") {
		t.Fatalf("the SSH key became the sandbox's settings copy:\n%s", screen)
	}
	if !strings.Contains(screen, "changed while claudebox was starting") || strings.Contains(screen, "EXIT=0") {
		t.Errorf("the launch did not refuse, naming the swapped file:\n%s", screen)
	}
}
