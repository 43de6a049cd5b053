package undo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
)

// TestMain lets a test run Take in a process of its own, as the
// supervisor does beside the session.
func TestMain(m *testing.M) {
	if root := os.Getenv("UNDO_TEST_TAKE"); root != "" {
		p, err := instance.Resolve(root)
		if err == nil {
			Take(context.Background(), os.Getenv("UNDO_TEST_STATE"), p, time.Now(), time.Now().Add(time.Hour), nil, false)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A session left a FIFO .gitattributes, on which the snapshot's git add
// waits; the supervisor taking it ends (killed, here): its git goes too,
// rather than staying behind, one for each later session.
func TestTakeHeldGitGoesWithSupervisor(t *testing.T) {
	p := repo(t, 1, 1)
	if err := syscall.Mkfifo(filepath.Join(p.Checkout, ".gitattributes"), 0o644); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	c := exec.Command(self, "-test.run=^$")
	c.Env = append(os.Environ(), "UNDO_TEST_TAKE="+p.Checkout, "UNDO_TEST_STATE="+t.TempDir())
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	held := 0
	for deadline := time.Now().Add(20 * time.Second); held == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		held = childGit(c.Process.Pid)
	}
	if held == 0 {
		t.Fatal("the snapshot's git add never waited on the FIFO")
	}
	c.Process.Kill()
	c.Wait()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(held)); err != nil {
			return
		}
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(held) + "/stat"); strings.Contains(string(b), ") Z ") {
			return
		}
	}
	syscall.Kill(held, syscall.SIGKILL)
	t.Error("the snapshot's git outlived the supervisor")
}

// childGit is the pid of a git add that parent started, or 0.
func childGit(parent int) int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(parent) + "/task/*/children")
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if strings.HasPrefix(string(cmd), "git\x00") && strings.Contains(string(cmd), "\x00add\x00") {
				pid, _ := strconv.Atoi(f)
				return pid
			}
		}
	}
	return 0
}

// A snapshot still being taken when the session's command ends is
// stopped (here its git add waits on a FIFO .gitattributes): Take returns
// at once, the snapshot stays pending, and its copy of the index (as
// large as the project's: 80 MB for 1,000,000 files) and git's lock on
// it go, rather than staying in the store, one for each session.
func TestTakeStopped(t *testing.T) {
	p := repo(t, 1, 1)
	if err := syscall.Mkfifo(filepath.Join(p.Checkout, ".gitattributes"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	returned := make(chan error, 1)
	go func() {
		_, err := Take(ctx, state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
		returned <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); childGit(os.Getpid()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the snapshot's git add never waited on the FIFO")
		}
	}
	stop()
	select {
	case err := <-returned:
		if err == nil {
			t.Fatal("a stopped snapshot was taken")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Take did not return once stopped")
	}
	if got := List(state, p.Root, p.Checkout); len(got) != 1 || !got[0].Pending {
		t.Errorf("the stopped snapshot: %+v, want one pending", got)
	}
	if left, _ := filepath.Glob(filepath.Join(storeOf(state, p.Root).dir, "*.index.*")); len(left) > 0 {
		t.Errorf("the stopped snapshot left %v", left)
	}
}

// A snapshot whose supervisor was killed while it worked left its copy of
// the store's index, and git's lock on it, for good: one a kill, each as
// large as the checkout's index. The next snapshot of the project removes
// them where no other snapshot works beside it, and leaves the store's
// own index and those of a snapshot still at work.
func TestTakeRemovesKilledSnapshotsCopies(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	now := time.Now()
	if _, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	st := storeOf(state, p.Root)
	index := filepath.Join(st.dir, instance.Hash(p.Checkout)+".index")
	killed := []string{index + ".20261128T000000.000000Z", index + ".20261128T000000.000000Z.lock"}
	for _, f := range killed {
		os.WriteFile(f, []byte("a killed snapshot's"), 0o600)
	}
	// Another snapshot at work holds the objects shared.
	other, err := st.lockObjects(syscall.LOCK_SH)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Take(context.Background(), state, p, now.Add(time.Second), now.Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	for _, f := range killed {
		if _, err := os.Lstat(f); err != nil {
			t.Errorf("%s was removed while another snapshot worked: %v", filepath.Base(f), err)
		}
	}
	other.Close()
	if _, err := Take(context.Background(), state, p, now.Add(2*time.Second), now.Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	for _, f := range killed {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s outlived the next snapshot", filepath.Base(f))
		}
	}
	if _, err := os.Lstat(index); err != nil {
		t.Errorf("the store's own index went: %v", err)
	}
}
