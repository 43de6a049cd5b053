package harness

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
	"golang.org/x/sys/unix"
)

// WaitFor polls until ok holds, failing the test after a minute.
func WaitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}

// Running reports whether a process with this command line exists.
func Running(cmdline string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && string(b) == cmdline {
			return true
		}
	}
	return false
}

// RefsNamed begins the end's line naming the refs moved or made while a
// session ran.
const RefsNamed = "claudebox: branches, tags or other refs were moved or made while the session ran (inside, or on the host)"

// StartSession starts claudebox --shell -c script in dir and returns once
// the script has touched "started" there (or the session ended): the
// supervisor, its output, and the session's end.
func StartSession(t *testing.T, h *Host, dir, script string) (*exec.Cmd, *strings.Builder, chan error) {
	t.Helper()
	c := h.Command(dir, nil, "claudebox", "--shell", "-c", script)
	out := &strings.Builder{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(dir, "started")) || len(exited) > 0 })
	return c, out, exited
}

// ShellAfterSnapshot runs claudebox --shell -c script in dir, the script
// held until this session's snapshot of dir is written, and returns the
// session's output and error. A script that ends at once would otherwise
// outrun the snapshot, and the exit judge the session as one without a
// record of its start (every executable git shows moved aside).
func ShellAfterSnapshot(t *testing.T, h *Host, dir, script string) (string, error) {
	t.Helper()
	records := filepath.Join(h.Home, ".claudebox", instance.UndoRecords, instance.Hash(dir), "*.snapshot")
	earlier, _ := filepath.Glob(records)
	c := h.Command(dir, nil, "claudebox", "--shell", "-c", "while ! test -e done; do sleep 0.05; done; rm -f done\n"+script)
	out := &strings.Builder{}
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	// An earlier session's snapshot is not this one's: its record is
	// named by the time it was taken, so this one's is a name not seen
	// before the launch.
	WaitFor(t, "this session's undo snapshot of "+dir, func() bool {
		found, _ := filepath.Glob(records)
		return slices.ContainsFunc(found, func(r string) bool { return !slices.Contains(earlier, r) }) || len(exited) > 0
	})
	if len(exited) == 0 {
		TouchDone(t, dir)
	}
	err := <-exited
	return out.String(), err
}

// renameRace is a hostile sandbox's program: renamerace PATH.... It
// renames each PATH.new over its PATH in turn, again and again, as fast as
// it can, printing RACED PATH for each that lands (its guard was gone),
// until a file named "done" exists.
func renameRace(targets []string) int {
	landed := map[string]bool{}
	for i := 0; ; i++ {
		for _, p := range targets {
			if !landed[p] && unix.Rename(p+".new", p) == nil {
				landed[p] = true
				fmt.Println("RACED", p)
			}
		}
		if i%1000 == 0 && paths.Exists("done") {
			return 0
		}
	}
}

// TouchDone ends the session waiting in dir, without changing the status of
// anything else (h.Write gives the whole host to the user again).
func TouchDone(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// HeldAttack is what heldLock did and saw.
type HeldAttack struct {
	H                             *Host
	Repo, Config, Marker, Payload string
	Written                       []byte
	Out                           string
	Err                           error
}

// HeldLock runs the host's git config (its steps one by one, so the
// sandbox is sure to catch the lock) against guardattack HOW, lets the
// sandbox write once the session has run on for a while, and checks the
// host side: .git/config is what the host wrote, and the host's git status
// runs nothing the sandbox planted.
func HeldLock(t *testing.T, how string) HeldAttack {
	h := NewHost(t)
	a := HeldAttack{H: h, Repo: filepath.Join(h.Home, "code", "repo"), Marker: filepath.Join(h.Base, "marker")}
	h.GitRepo(a.Repo)
	self, _ := os.Executable()
	h.CopyFile(self, filepath.Join(a.Repo, "guardattack"), 0o755)
	h.Chown()
	a.Config = filepath.Join(a.Repo, ".git", "config")
	a.Payload = `[core] fsmonitor = "touch ` + a.Marker + `"`
	_, out, exited := StartSession(t, h, a.Repo, `touch started; exec ./guardattack `+how+` .git/config.lock '`+a.Payload+`'`)
	// git config: create config.lock exclusively, write it, rename it over config.
	h.Run(a.Repo, nil, "sh", "-c", `set -C; cat .git/config > .git/config.lock && printf '[x]\n\ty = 1\n' >> .git/config.lock`)
	a.Written, _ = os.ReadFile(a.Config + ".lock")
	WaitFor(t, "the sandbox to catch the lock", func() bool { return paths.Exists(filepath.Join(a.Repo, "armed")) || len(exited) > 0 })
	h.Run(a.Repo, nil, "mv", ".git/config.lock", ".git/config")
	select {
	case a.Err = <-exited:
	case <-time.After(2 * time.Second):
		h.Write(filepath.Join(a.Repo, "go"), "")
		a.Err = <-exited
	}
	a.Out = out.String()
	t.Logf("session: %v\n%s", a.Err, a.Out)
	if now, _ := os.ReadFile(a.Config); string(now) != string(a.Written) {
		t.Errorf(".git/config is not what the host wrote:\n%s", now)
	}
	h.Run(a.Repo, nil, "git", "status", "--short")
	if paths.Exists(a.Marker) {
		t.Errorf("the host's git status ran what the sandbox planted")
	}
	return a
}

// guardAttack is a hostile sandbox's program: guardattack HOW NEW LINE. It
// waits for the host to create NEW, a lock or temporary file the host will
// rename over a guarded path (git creates it exclusively, so it can only be
// caught once it exists), and gets hold of it: HOW is "fd" (a descriptor
// open for appending), "mmap" (a shared writable mapping, its descriptor
// closed), "link" (a second name, NEW-link), "mprotect" (a shared mapping
// made read-only until it writes), "socket" (a descriptor sent over a Unix
// socket and closed, received only to write), "reopen" (like socket, but
// an O_PATH descriptor, reopened for writing through /proc/self/fd) or "thread" (a descriptor in
// a thread's own descriptor table, which /proc/PID/fd does not list). It
// touches "armed" in its
// working directory once it holds the file; once a file named "go" exists,
// it writes LINE into the file and prints WROTE.
func guardAttack(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: guardattack fd|mmap|link|mprotect|socket|reopen|thread NEW LINE")
		return 2
	}
	how, newPath, line := args[0], args[1], args[2]
	if how != "thread" {
		return holdAndWrite(how, newPath, line)
	}
	// The main thread (the one /proc/PID/fd lists) stays as it is; the
	// attack runs on another thread with a descriptor table of its own.
	// The runtime's poller, which every thread uses, is made before, in the
	// table they share.
	runtime.LockOSThread()
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
	status := make(chan int)
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_FILES); err != nil {
			fmt.Fprintln(os.Stderr, "guardattack:", err)
			status <- 1
			return
		}
		status <- holdAndWrite(how, newPath, line)
	}()
	return <-status
}

// holdAndWrite is guardattack's attack.
func holdAndWrite(how, newPath, line string) int {
	var fd int
	var mapped []byte
	var err error
	var sock [2]int
	if how == "socket" || how == "reopen" {
		if sock, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
			fmt.Fprintln(os.Stderr, "guardattack:", err)
			return 1
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		switch how {
		case "fd":
			fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		case "mmap":
			if fd, err = unix.Open(newPath, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
				mapped, err = unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
				unix.Close(fd)
			}
		case "link":
			err = unix.Link(newPath, newPath+"-link")
		case "mprotect":
			if fd, err = unix.Open(newPath, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
				mapped, err = unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_SHARED)
				unix.Close(fd)
			}
		case "socket":
			if fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0); err == nil {
				err = unix.Sendmsg(sock[0], []byte{0}, unix.UnixRights(fd), nil, 0)
				unix.Close(fd)
			}
		case "reopen":
			if fd, err = unix.Open(newPath, unix.O_PATH|unix.O_CLOEXEC, 0); err == nil {
				err = unix.Sendmsg(sock[0], []byte{0}, unix.UnixRights(fd), nil, 0)
				unix.Close(fd)
			}
		case "thread":
			fd, err = unix.Open(newPath, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		}
		if err == nil {
			break
		}
		if how == "link" && err == unix.EXDEV {
			// Refused as between two mounts (the seccomp filter).
			fmt.Fprintln(os.Stderr, "guardattack: no second name:", err)
			return 1
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "guardattack: never caught", newPath, err)
			return 1
		}
	}
	os.WriteFile("armed", nil, 0o644)
	for !paths.Exists("go") {
		time.Sleep(5 * time.Millisecond)
	}
	payload := "\n" + line + "\n"
	switch how {
	case "socket", "reopen":
		oob := make([]byte, unix.CmsgSpace(4))
		var n int
		if _, n, _, _, err = unix.Recvmsg(sock[1], make([]byte, 1), oob, 0); err != nil {
			break
		}
		var msgs []unix.SocketControlMessage
		if msgs, err = unix.ParseSocketControlMessage(oob[:n]); err != nil || len(msgs) != 1 {
			err = fmt.Errorf("no descriptor came: %v", err)
			break
		}
		var fds []int
		if fds, err = unix.ParseUnixRights(&msgs[0]); err != nil {
			break
		}
		if how == "reopen" {
			if fds[0], err = unix.Open(fmt.Sprintf("/proc/self/fd/%d", fds[0]), unix.O_WRONLY|unix.O_APPEND, 0); err != nil {
				break
			}
		}
		_, err = unix.Write(fds[0], []byte(payload))
	case "fd", "thread":
		_, err = unix.Write(fd, []byte(payload))
	case "link":
		var f *os.File
		if f, err = os.OpenFile(newPath+"-link", os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString(payload)
			f.Close()
		}
	case "mprotect":
		if err = unix.Mprotect(mapped, unix.PROT_READ|unix.PROT_WRITE); err != nil {
			break
		}
		fallthrough
	case "mmap":
		// A mapping writes only within the file's size: the payload
		// replaces its start, a comment the rest.
		size := bytes.IndexByte(mapped, 0)
		if size < len(payload)+2 {
			err = fmt.Errorf("%d bytes do not fit the payload", size)
			break
		}
		copy(mapped, payload+"#"+strings.Repeat(" ", size-len(payload)-2)+"\n")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "guardattack: write:", err)
		return 1
	}
	fmt.Println("WROTE")
	return 0
}

// FreePort is a port of the host's loopback that nothing listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// WhenReady runs act on the host once the sandbox has made the file
// ready (within two minutes), then makes the file done, for the sandbox
// to look at what act changed while it ran. It sends act's error, or
// why act never ran.
func WhenReady(ready, done string, act func() error) <-chan error {
	host := make(chan error, 1)
	go func() {
		for deadline := time.Now().Add(2 * time.Minute); !paths.Exists(ready); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				host <- fmt.Errorf("the sandbox never said it was ready")
				return
			}
		}
		err := act()
		if err == nil {
			err = os.WriteFile(done, nil, 0o644)
		}
		host <- err
	}()
	return host
}
