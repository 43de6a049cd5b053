package landlock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The test binary is its own probe: run with LANDLOCK_PROBE set to an
// abstract socket's name, it tries to connect to it and to signal its
// parent, and prints what happened.
func TestMain(m *testing.M) {
	if name := os.Getenv("LANDLOCK_PROBE"); name != "" {
		if c, err := net.Dial("unix", "@"+name); err != nil {
			fmt.Println("connect:", errors.Unwrap(errors.Unwrap(err)))
		} else {
			c.Close()
			fmt.Println("connect: ok")
		}
		fmt.Println("signal:", syscall.Kill(os.Getppid(), 0))
		os.Exit(0)
	}
	if root := os.Getenv("LANDLOCK_SOCKETS"); root != "" {
		// On the main thread, locked: the one Restrict restricts.
		if err := Restrict([]string{root}, 0); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.Mkdir(filepath.Join(filepath.Dir(root), "later"), 0o755)
		for _, p := range []string{"x.sock", "sub/x.sock", "../other/x.sock", "../x.sock", "../later/x.sock"} {
			fd, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			fmt.Printf("%s: %v\n", p, unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(root, p)}))
			unix.Close(fd)
		}
		os.Exit(0)
	}
	if root := os.Getenv("LANDLOCK_MOVES"); root != "" {
		if err := Restrict([]string{root}, 0); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		other := filepath.Join(filepath.Dir(root), "other")
		fd, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(other, "s.sock")})
		unix.Close(fd)
		os.Mkdir(filepath.Join(other, "d"), 0o755)
		fmt.Println("file to another folder:", unix.Rename(filepath.Join(root, "a"), filepath.Join(root, "sub", "a")))
		fmt.Println("hard link to another folder:", unix.Link(filepath.Join(root, "sub", "a"), filepath.Join(root, "b")))
		fmt.Println("socket into the root:", unix.Rename(filepath.Join(other, "s.sock"), filepath.Join(root, "s.sock")))
		fmt.Println("folder into the root:", unix.Rename(filepath.Join(other, "d"), filepath.Join(root, "d")))
		fd, _ = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		fmt.Println("socket in the folder moved:", unix.Bind(fd, &unix.SockaddrUnix{Name: filepath.Join(root, "d", "x.sock")}))
		os.Exit(0)
	}
	code := make(chan int)
	go func() { code <- m.Run() }()
	for {
		select {
		case f := <-onMainThread:
			f()
		case c := <-code:
			os.Exit(c)
		}
	}
}

// The main goroutine stays on the main thread, and runs what tests send
// here.
var onMainThread = make(chan func())

func init() { runtime.LockOSThread() }

func probe(t *testing.T, start func(*exec.Cmd) error) string {
	t.Helper()
	name := fmt.Sprintf("claudebox-landlock-test-%d", os.Getpid())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "LANDLOCK_PROBE="+name)
	var out strings.Builder
	cmd.Stdout = &out
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestStartScopes(t *testing.T) {
	if ABI() < ScopeABI {
		msg := fmt.Sprintf("Landlock ABI %d has no scoping", ABI())
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	const open, scoped = "connect: ok\nsignal: <nil>\n", "connect: operation not permitted\nsignal: operation not permitted\n"
	plain := (*exec.Cmd).Start
	// Started from the main thread, which a child's domain must not take
	// in: the kernel judges signals to this process by it.
	fromMainThread := func(cmd *exec.Cmd) error {
		done := make(chan error, 1)
		onMainThread <- func() { startOnThread(cmd, AbstractSockets|Signals, done) }
		return <-done
	}
	for _, c := range []struct {
		name  string
		start func(*exec.Cmd) error
		want  string
	}{
		{"control", plain, open},
		{"Start", func(cmd *exec.Cmd) error { return Start(cmd, AbstractSockets|Signals) }, scoped},
		{"signals only", func(cmd *exec.Cmd) error { return Start(cmd, Signals) }, "connect: ok\nsignal: operation not permitted\n"},
		{"from the main thread", fromMainThread, scoped},
		// This process is not in the domains it made.
		{"after them", plain, open},
	} {
		if got := probe(t, c.start); got != c.want {
			t.Errorf("%s: the probe printed %q, want %q", c.name, got, c.want)
		}
	}
}

// TestStartKeepsParentThread: a child that asks to die with its parent
// (bwrap's --die-with-parent) lives on after Start returns, until it ends.
func TestStartKeepsParentThread(t *testing.T) {
	if ABI() < ScopeABI {
		t.Skip("no Landlock scoping")
	}
	cmd := exec.Command("sh", "-c", "sleep 0.2; echo alive")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(cmd, Signals); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || out.String() != "alive\n" {
		t.Errorf("the child: %v, printed %q", err, out.String())
	}
}

// BenchmarkStart: starting and waiting for true, in a domain and plainly.
func BenchmarkStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	for _, c := range []struct {
		name  string
		start func(*exec.Cmd) error
	}{{"plain", (*exec.Cmd).Start}, {"landlock", func(cmd *exec.Cmd) error { return Start(cmd, AbstractSockets|Signals) }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(truePath)
				if err := c.start(cmd); err != nil {
					b.Fatal(err)
				}
				cmd.Wait()
			}
		})
	}
}

// TestRefuseSockets: no socket is made in the root or below it, nor in a
// directory on the way to it or one made there later; beside the way, a
// socket is made as before.
func TestRefuseSockets(t *testing.T) {
	if !restricts(ABI()) {
		t.Skip("no Landlock that grants moves")
	}
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	for _, d := range []string{"proj/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "LANDLOCK_SOCKETS="+root)
	out, err := cmd.CombinedOutput()
	const want = "x.sock: permission denied\nsub/x.sock: permission denied\n../other/x.sock: <nil>\n../x.sock: permission denied\n../later/x.sock: permission denied\n"
	if err != nil || string(out) != want {
		t.Errorf("the probe: %v, printed\n%s\nwant\n%s", err, out, want)
	}
}

// TestRefuseSocketsMoves: any Landlock domain refuses to move a file into
// another folder unless a rule grants it, which refused git mv a.txt sub/
// in the whole sandbox; from the second ABI on it is granted, and a socket
// renamed into the root, or one made in a folder of the root's that came
// from where sockets are made, is still refused.
func TestRefuseSocketsMoves(t *testing.T) {
	if ABI() < ReferABI {
		t.Skip("no Landlock that grants moves")
	}
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	for _, d := range []string{"proj/sub", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "LANDLOCK_MOVES="+root)
	out, err := cmd.CombinedOutput()
	const want = "file to another folder: <nil>\nhard link to another folder: <nil>\nsocket into the root: permission denied\nfolder into the root: <nil>\nsocket in the folder moved: permission denied\n"
	if err != nil || string(out) != want {
		t.Errorf("the probe: %v, printed\n%s\nwant\n%s", err, out, want)
	}
}

// TestRestrictsOnlyWithMoves: on a Landlock that cannot grant moving a
// file between folders (Linux 5.13 to 5.18) the sandbox gets no domain,
// which would refuse every such rename inside (git mv a.txt sub/).
func TestRestrictsOnlyWithMoves(t *testing.T) {
	for abi, want := range map[int]bool{0: false, 1: false, ReferABI: true, ScopeABI: true} {
		if got := restricts(abi); got != want {
			t.Errorf("Landlock ABI %d: restricts %v, want %v", abi, got, want)
		}
	}
}

// BenchmarkSocketRules: what the sandbox's first process spends on the
// rules before its command runs, for a project three levels below / (a
// rule for each directory beside the way: this machine's / and /tmp's).
func BenchmarkSocketRules(b *testing.B) {
	if !restricts(ABI()) {
		b.Skip("no Landlock that grants moves")
	}
	root := filepath.Join(b.TempDir(), "proj")
	for b.Loop() {
		fd, err := rules([]string{root}, 0)
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
}
