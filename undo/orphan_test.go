package undo

import (
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
			Take(os.Getenv("UNDO_TEST_STATE"), p, time.Now(), time.Now().Add(time.Hour), nil)
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
