// Package firstprocess is claudebox as the sandbox's first process: it
// execs the sandbox's command (inside.ExecFlag) as the terminal's
// foreground job, in its Landlock domain and under its limits, and on the
// filtered network (inside.RelayExecFlag) first listens for the relay and
// hands the listeners to the supervisor's proxy. It runs from this
// package's initialisation, and execs or exits there: the packages it does
// not import (the command line's parser, net/http, the audit) never
// initialise in it, about half of a Go process's start here, on the
// launch's path (first_process_init.txtar).
package firstprocess

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/landlock"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/printable"
)

// init is the first process's whole run, where its arguments ask for it;
// any other process goes on to initialise the rest.
func init() {
	ok, err := run(os.Args[1:])
	if !ok {
		return
	}
	// run returns only where the command was not exec'd.
	printable.Say(os.Stderr, "claudebox: %v", err)
	if h := hint.Of(err); h != "" {
		printable.Say(os.Stderr, "hint: %s", h)
	}
	os.Exit(1)
}

// run runs claudebox as the sandbox's first process when args start with
// one of its hidden flags; ok is false otherwise.
func run(args []string) (ok bool, err error) {
	if len(args) < 2 || args[0] != inside.RelayExecFlag && args[0] != inside.ExecFlag {
		return false, nil
	}
	// Before the published ports' relay starts: it is the sandbox's too.
	if err := limits.NoCores(); err != nil {
		return true, err
	}
	if args[0] == inside.RelayExecFlag {
		handoff, err := strconv.Atoi(args[1])
		if err != nil || handoff < 3 {
			return true, fmt.Errorf("%s FD [PORTS] [LIMITS] -- COMMAND: %q: not a descriptor", inside.RelayExecFlag, args[1])
		}
		ports, rest, err := inside.ParsePorts(args[2:])
		noSockets, scope, rest := parseNoSockets(rest)
		var lims limits.Limits
		if err == nil {
			lims, rest, err = limits.Parse(rest)
		}
		if err != nil || len(rest) < 2 || rest[0] != "--" {
			return true, fmt.Errorf("%s FD [PORTS] [NO-SOCKETS] [LIMITS] -- COMMAND: %v", inside.RelayExecFlag, err)
		}
		return true, execBehind(handoff, ports, noSockets, scope, lims, rest[1:])
	}
	noSockets, scope, rest := parseNoSockets(args[1:])
	lims, rest, err := limits.Parse(rest)
	if err != nil || len(rest) < 2 || rest[0] != "--" {
		return true, fmt.Errorf("%s [NO-SOCKETS] [LIMITS] -- COMMAND: %v", inside.ExecFlag, err)
	}
	return true, execForeground(noSockets, scope, lims, rest[1:])
}

// execBehind listens on inside.RelayAddress and on the forwarded ports,
// hands the listeners out on the descriptor handoff, starts the published
// ports' relay if there are any, and execs command under the limits, which
// the relay is started before. The relay has a session of its own: the
// terminal's signals (Ctrl-C to interrupt Claude) are not for it.
func execBehind(handoff int, ports inside.Ports, noSockets []string, scope landlock.Scope, lims limits.Limits, command []string) error {
	var fds []int
	for _, a := range inside.ListenAddrs(ports) {
		fd, err := listen(a)
		if err != nil {
			return fmt.Errorf("the network relay cannot listen on %s: %v", a, err)
		}
		fds = append(fds, fd)
	}
	if err := unix.Sendmsg(handoff, []byte{0}, unix.UnixRights(fds...), nil, 0); err != nil {
		return fmt.Errorf("the network relay cannot hand its listeners to claudebox: %v", err)
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
	unix.Close(handoff)
	if len(ports.Publish) > 0 {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		r := exec.Command(self, append([]string{inside.ServeFlag, inside.ProxySocket}, inside.Ports{Publish: ports.Publish}.Args()...)...)
		// Its Go runtime runs on one processor, as the guard watcher's:
		// it parks connections and copies bytes, and each further
		// processor kept spans of its own resident for the whole session
		// (0.3 MB on two processors). It reads nothing of the sandbox's
		// environment.
		r.Env = []string{"GOMAXPROCS=1"}
		r.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := r.Start(); err != nil {
			return fmt.Errorf("cannot start the network relay: %v", err)
		}
	}
	return execForeground(noSockets, scope, lims, command)
}

// parseNoSockets reads the directories inside.NoSocketsFlag names at
// the start of args, and what the command's domain scopes: signals, and
// abstract sockets but after inside.DesktopSocketsFlag.
func parseNoSockets(args []string) ([]string, landlock.Scope, []string) {
	var dirs []string
	scope := landlock.Signals | landlock.AbstractSockets
	for {
		switch {
		case len(args) >= 2 && args[0] == inside.NoSocketsFlag:
			dirs = append(dirs, args[1])
			args = args[2:]
		case len(args) >= 1 && args[0] == inside.DesktopSocketsFlag:
			scope = landlock.Signals
			args = args[1:]
		default:
			return dirs, scope, args
		}
	}
}

// execForeground execs command under the limits, as the terminal's
// foreground job when its standard input is the terminal, in a Landlock
// domain that scopes it and keeps it from making a socket below
// noSockets: Landlock restricts the thread that execs.
func execForeground(noSockets []string, scope landlock.Scope, lims limits.Limits, command []string) error {
	path, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	foreground()
	runtime.LockOSThread()
	if err := landlock.Restrict(noSockets, scope); err != nil {
		return err
	}
	return limits.Exec(lims, path, command, os.Environ())
}

// foreground puts the command, when its standard input is the terminal, in
// a process group of its own and makes it the terminal's foreground, as a
// shell starts a job. The kernel drops the SIGTSTP of a group none of whose
// parents is in another group of its session, as bwrap's own is: Claude's
// Ctrl-Z (kill(0, SIGTSTP)) would stop nothing, and Claude would wait for a
// SIGCONT no one sends. In a group of its own, below bwrap's, it stops,
// which claudebox sees and follows (the pty package).
func foreground() {
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		return
	}
	was := unix.Getpgrp()
	if unix.Setpgid(0, 0) != nil {
		return
	}
	// A background group that sets the terminal's foreground is stopped
	// (SIGTTOU) unless it ignores the signal.
	signal.Ignore(unix.SIGTTOU)
	defer signal.Reset(unix.SIGTTOU)
	if unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, unix.Getpid()) != nil {
		unix.Setpgid(0, was)
	}
}

// listen is a listening TCP socket on addr (127.0.0.1:PORT), closed on
// exec: the command gets none of them.
func listen(addr string) (int, error) {
	host, port, _ := strings.Cut(addr, ":")
	n, err := strconv.Atoi(port)
	if host != "127.0.0.1" || err != nil || n < 1 || n > 65535 {
		return -1, fmt.Errorf("%s: not 127.0.0.1 and a port", addr)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err = unix.Bind(fd, &unix.SockaddrInet4{Port: n, Addr: [4]byte{127, 0, 0, 1}}); err == nil {
		err = unix.Listen(fd, unix.SOMAXCONN)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
