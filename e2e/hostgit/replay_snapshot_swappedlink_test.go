package hostgit

import (
	"bytes"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplaySnapshotReadThroughSwappedLink: the snapshot for --undo runs
// git add on the checkout beside the session, and git opens each path it
// listed, following a symlink before the last component. A session that
// swaps a directory for a link to ~/.ssh between git's listing and its
// open of a file below had the host's key taken into the snapshot, which
// --undo then wrote into the project, where the next session reads it (a
// loop of renames won that race 3 times in 200 snapshots). The race is
// won here every time: the supervisor's snapshot is held before its git
// add (CLAUDEBOX_TRACE_HOLD), the test takes leases on the files git
// opens just before and just after the one below the directory, so that
// git waits at each having listed them all, and the sandbox swaps the
// directory for the link at the first and back at the second. Host-side
// proof: the snapshot names the file as unknown, and --undo writes no
// byte of the key into the project.
func TestReplaySnapshotReadThroughSwappedLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	key := "-----BEGIN OPENSSH PRIVATE KEY----- R39swappedLinkKeyQ2pLm4x9W\n"
	h.Write(filepath.Join(h.Home, ".ssh", "id"), key)
	h.Write(filepath.Join(proj, "a.txt"), "opened before b/id\n")
	h.Write(filepath.Join(proj, "b", "id"), "the project's\n")
	h.Write(filepath.Join(proj, "c.txt"), "opened after b/id\n")
	h.GitRepo(proj)
	var said harness.Output
	s := h.Command(proj, []string{"CLAUDEBOX_TRACE=1", "CLAUDEBOX_TRACE_HOLD=snapshot listed"}, "claudebox", "--shell", "-c",
		`touch started; while ! test -e swap; do sleep 0.05; done
		mv b b.old && ln -s '`+filepath.Join(h.Home, ".ssh")+`' b && touch swapped
		while ! test -e back; do sleep 0.05; done
		rm b && mv b.old b && touch swappedback
		while ! test -e done; do sleep 0.05; done`)
	s.Stdout, s.Stderr = &said, &said
	harness.Must(t, s.Start())
	defer s.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- s.Wait() }()
	harness.WaitFor(t, "the snapshot to hold before its git add", func() bool {
		return strings.Contains(said.String(), "holding after snapshot listed") || len(exited) > 0
	})
	if len(exited) > 0 {
		t.Fatalf("the session ended before its snapshot's git add: %v\n%s", <-exited, said.String())
	}
	// Write leases on a.txt and c.txt, which git reads just before and
	// just after b/id: its open of each waits until the lease is given
	// back, and the kernel tells the holder with a SIGIO.
	broken := make(chan os.Signal, 2)
	signal.Notify(broken, syscall.SIGIO)
	defer signal.Stop(broken)
	lease := func(name string) *os.File {
		f, err := os.Open(filepath.Join(proj, name))
		harness.Must(t, err)
		t.Cleanup(func() { f.Close() })
		if _, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_WRLCK); err != nil {
			t.Fatalf("F_SETLEASE of %s: %v", name, err)
		}
		return f
	}
	a, c := lease("a.txt"), lease("c.txt")
	harness.Must(t, s.Process.Signal(syscall.SIGUSR1))
	// Once git waits at a file, the sandbox swaps b, then the file is let
	// go.
	swapWhileOpening := func(opened string, f *os.File, tell, done string) {
		select {
		case <-broken:
		case err := <-exited:
			t.Fatalf("the session ended before git opened %s: %v\n%s", opened, err, said.String())
		case <-time.After(time.Minute):
			t.Fatalf("git add did not open %s within a minute\n%s", opened, said.String())
		}
		h.Write(filepath.Join(proj, tell), "")
		harness.WaitFor(t, "the sandbox to swap b ("+done+")", func() bool { return paths.Exists(filepath.Join(proj, done)) })
		if _, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK); err != nil {
			t.Fatalf("F_SETLEASE F_UNLCK of %s: %v", opened, err)
		}
	}
	swapWhileOpening("a.txt", a, "swap", "swapped")
	swapWhileOpening("c.txt", c, "back", "swappedback")
	store := filepath.Join(h.Home, ".claudebox", "undo")
	var record []byte
	harness.WaitFor(t, "the snapshot to be written", func() bool {
		found, _ := filepath.Glob(filepath.Join(store, "*", "*.snapshot"))
		if len(found) == 1 {
			record, _ = os.ReadFile(found[0])
		}
		return len(found) == 1
	})
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, said.String())
	}
	if !strings.Contains(string(record), `unknown "b/id"`) {
		t.Errorf("the snapshot does not name b/id, read through the link, as unknown:\n%s", record)
	}
	out, _ := h.Command(proj, nil, "claudebox", "--undo", "-y").CombinedOutput()
	filepath.WalkDir(proj, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("R39swappedLinkKey")) {
				t.Errorf("--undo wrote the host's key into %s:\n%s", path, out)
			}
		}
		return nil
	})
}
