// Package landlock starts a child inside a Landlock domain that scopes
// abstract Unix sockets, signals or both: the child and everything under it
// can connect only to abstract sockets created inside the domain, and
// signal only processes inside it. No filesystem or network access is
// restricted.
package landlock

import (
	"fmt"
	"os/exec"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ScopeABI is the first Landlock ABI with scoping (Linux 6.12).
const ScopeABI = 6

// ABI returns the kernel's Landlock ABI version, 0 when Landlock is
// missing or disabled.
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Scope is what a domain's processes cannot reach outside it.
type Scope uint64

const (
	AbstractSockets Scope = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	Signals         Scope = unix.LANDLOCK_SCOPE_SIGNAL
)

// Start starts cmd inside a new domain with scope. Landlock restricts a thread,
// and a child inherits the domain of the thread it was forked from, which
// in Go is the thread of the goroutine that starts it. So the domain is
// made on a locked thread, cmd is started from it, and the goroutine ends
// still locked, so that the runtime discards the thread rather than run
// other goroutines on it. It ends when the child does, not before: a
// parent-death signal the child asks for (bwrap's --die-with-parent)
// follows the thread that forked it. The caller still waits for cmd.
//
// Restricting oneself needs no_new_privs, which the child inherits: a
// setuid program it runs does not elevate.
func Start(cmd *exec.Cmd, scope Scope) error {
	done := make(chan error)
	go startOnThread(cmd, scope, done)
	return <-done
}

func startOnThread(cmd *exec.Cmd, scope Scope, done chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread outlives its goroutine, and the kernel judges a
		// signal to this process by it: hold it, so that another goroutine
		// must take another thread.
		inner := make(chan error)
		go startOnThread(cmd, scope, inner)
		err := <-inner
		runtime.UnlockOSThread()
		done <- err
		return
	}
	err := restrictThenStart(cmd, scope)
	done <- err
	if err == nil {
		// Wait for the exit without reaping it: that is the caller's.
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
	}
}

func restrictThenStart(cmd *exec.Cmd, scope Scope) error {
	attr := unix.LandlockRulesetAttr{Scoped: uint64(scope)}
	// The attribute's size up to Scoped: a kernel refuses a larger struct
	// unless it knows the fields beyond.
	size := unsafe.Offsetof(attr.Scoped) + unsafe.Sizeof(attr.Scoped)
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: cannot create a ruleset: %v", errno)
	}
	defer unix.Close(int(fd))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: cannot set no_new_privs: %v", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: cannot restrict the thread: %v", errno)
	}
	return cmd.Start()
}
