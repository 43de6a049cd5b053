package landlock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
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
