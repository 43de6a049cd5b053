package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

func init() {
	// sessionparent BASE HOME BIN UID GID DIR SCRIPT: a test binary that
	// starts a session as the harness does, prints its pid, and waits to
	// be killed.
	harness.Helpers["sessionparent"] = func() int { return sessionParent(os.Args[1:]) }
}

// sessionParent is a test binary reduced to its harness: it starts a
// session in a host given by its arguments, prints the session's pid, and
// waits to be killed.
func sessionParent(args []string) int {
	if len(args) != 7 {
		fmt.Fprintln(os.Stderr, "sessionparent: BASE HOME BIN UID GID DIR SCRIPT")
		return 2
	}
	uid, _ := strconv.Atoi(args[3])
	gid, _ := strconv.Atoi(args[4])
	h := &harness.Host{Base: args[0], Home: args[1], Bin: args[2], UID: uid, GID: gid}
	c := h.Command(args[5], nil, "claudebox", "--shell", "-c", args[6])
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sessionparent:", err)
		return 1
	}
	fmt.Println(c.Process.Pid)
	select {}
}

// alive says a process with pid, or one whose command line holds mark,
// still runs (a zombie does not: nothing may reap it here).
func alive(pid int, mark string) bool {
	state := func(p string) string {
		b, _ := os.ReadFile(filepath.Join("/proc", p, "stat"))
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && len(b) > i+2 {
			return string(b[i+2])
		}
		return ""
	}
	if s := state(strconv.Itoa(pid)); s != "" && s != "Z" {
		return true
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), mark) && state(e.Name()) != "Z" {
			return true
		}
	}
	return false
}

// TestHarnessSessionsDieWithTheTest: a test binary killed (go test's
// timeout, a developer's ^C twice) left the sessions its harness started
// running, each waiting on a file no one would write. The harness's
// children now die with the test binary that started them, and so does
// the sandbox.
func TestHarnessSessionsDieWithTheTest(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "x"), "x\n")
	self, _ := os.Executable()
	parent := filepath.Join(t.TempDir(), "sessionparent")
	h.CopyFile(self, parent, 0o755)
	mark := fmt.Sprintf("never-written-%d-%d", os.Getpid(), time.Now().UnixNano())
	c := exec.Command(parent, h.Base, h.Home, h.Bin, strconv.Itoa(h.UID), strconv.Itoa(h.GID), proj,
		"touch started; while ! test -e "+mark+"; do sleep 0.05; done")
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		c.Process.Kill()
		c.Wait()
		t.Fatalf("the session's parent printed %q: %v %v", line, err, perr)
	}
	t.Cleanup(func() {
		// Should the session outlive its parent, it ends.
		os.WriteFile(filepath.Join(proj, mark), nil, 0o644)
		for deadline := time.Now().Add(30 * time.Second); alive(pid, mark) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(proj, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatal("the session did not start")
		}
	}
	c.Process.Kill()
	c.Wait()
	for deadline := time.Now().Add(30 * time.Second); alive(pid, mark); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the session (pid %d) and its sandbox outlived the test binary that started it", pid)
		}
	}
}
