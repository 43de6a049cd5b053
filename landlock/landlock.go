// Package landlock starts a child inside a Landlock domain that scopes
// abstract Unix sockets, signals or both: the child and everything under it
// can connect only to abstract sockets created inside the domain, and
// signal only processes inside it. And it keeps the sandbox's command
// from making a named socket in the project, scoped the same in that one
// domain (Restrict). No other filesystem or network access is restricted.
package landlock

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/paths"
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

// Restrict puts the calling thread, and what it execs, in one Landlock
// domain that scopes scope (from Linux 6.12; nothing before) and keeps it
// from making a named Unix socket in any of roots or below them: a host
// client pointed at a socket there (a PGHOST, a DOCKER_HOST) would talk to
// the sandbox's listener. Landlock only gives rights back beneath the
// directories a rule names, so each directory beside the way down to a
// root gets one: a socket made in a directory on the way (the home) or
// below one made there later is refused too. One domain for both: any
// domain refuses to move a file into another folder where no rule of its
// own grants it, so a second, of the scope alone (Start's), refused every
// move this one grants. The caller has locked its thread, and execs from
// it. Without a Landlock that can grant moves (see ReferABI), or roots, it
// does nothing.
func Restrict(roots []string, scope Scope) error {
	abi := ABI()
	if !restricts(abi) || len(roots) == 0 {
		return nil
	}
	if abi < ScopeABI {
		scope = 0
	}
	fd, err := rules(roots, scope)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: cannot set no_new_privs: %v", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock: cannot restrict the thread: %v", errno)
	}
	return nil
}

// ReferABI is the first Landlock ABI that lets a rule grant the moving
// of files between folders (Linux 5.19), which any domain refuses where
// none grants it.
const ReferABI = 2

// restricts says whether Restrict makes a domain on a kernel of Landlock
// ABI abi: before ReferABI a domain would refuse every rename across
// folders inside (git mv, a package manager's install), which costs more
// than the refusal of sockets is worth, so there is none (Linux 5.13 to
// 5.18: Ubuntu 22.04's own kernel).
func restricts(abi int) bool { return abi >= ReferABI }

// rules is the ruleset Restrict restricts with. Any Landlock domain refuses to rename or hard-link a file into
// another folder unless a rule grants it (EXDEV: git mv a.txt sub/ failed
// inside): from the second ABI on, a rule on / grants it everywhere. A
// socket moved still needs the right to make one where it goes, and a
// folder moved may not gain a right there; each root is a mount of its
// own (the project, a bind), which nothing outside it is renamed into.
func rules(roots []string, scope Scope) (int, error) {
	handled := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_REFER)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled, Scoped: uint64(scope)}
	// Up to Scoped only where it is set: a kernel before it refuses a
	// larger struct.
	size := unsafe.Offsetof(attr.Handled_access_fs) + unsafe.Sizeof(attr.Handled_access_fs)
	if scope != 0 {
		size = unsafe.Offsetof(attr.Scoped) + unsafe.Sizeof(attr.Scoped)
	}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock: cannot create a ruleset: %v", errno)
	}
	fd := int(r)
	if err := allow(fd, "/", unix.LANDLOCK_ACCESS_FS_REFER); err != nil {
		unix.Close(fd)
		return -1, err
	}
	way := map[string]bool{}
	for _, r := range roots {
		for d := filepath.Clean(r); !way[d]; d = filepath.Dir(d) {
			way[d] = true
		}
	}
	for d := range way {
		if paths.UnderAny(d, roots) {
			continue
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if way[p] || !e.IsDir() {
				continue
			}
			if err := allow(fd, p, unix.LANDLOCK_ACCESS_FS_MAKE_SOCK); err != nil {
				unix.Close(fd)
				return -1, err
			}
		}
	}
	return fd, nil
}

// allow adds to the ruleset a rule that grants access below dir (sockets
// made, files moved); one that cannot be opened (gone, not searchable)
// gets none.
func allow(ruleset int, dir string, access uint64) error {
	d, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(d)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(d)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: cannot add a rule for %s: %v", dir, errno)
	}
	return nil
}
