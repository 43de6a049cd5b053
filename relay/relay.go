// Package relay is claudebox as the sandbox's first process, which makes
// the command the terminal's foreground job (ExecFlag), and on the
// filtered network that network's door inside the sandbox. The
// sandbox has a network namespace of its own, with loopback only; claudebox
// itself, bound read-only into it, runs as its first process: it listens on
// the sandbox's 127.0.0.1 (and the forwarded ports), hands the listeners
// out to the supervisor over a socket bwrap passed it (Receive), and
// becomes the command. The supervisor's proxy accepts on them: no process
// of claudebox's stays inside, but with published ports, whose relay
// parks connections on the proxy's Unix socket, bound in. The agent can
// close nothing of the supervisor's: at worst it fills the proxy's bound
// on connections, as through that socket.
package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/internal/idle"
	"github.com/claudebox/claudebox/internal/pipe"
	"github.com/claudebox/claudebox/landlock"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/proxy"
)

// serveFlag SOCKET [PORTS]: be the published ports' relay.
const serveFlag = "--relay-serve"

// parsePorts reads what Args writes, up to "--" or the end: the ports and
// the words after them.
func parsePorts(args []string) (inside.Ports, []string, error) {
	var p inside.Ports
	for len(args) >= 2 && (args[0] == inside.ForwardFlag || args[0] == inside.PublishFlag) {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > 65535 {
			return p, nil, fmt.Errorf("%s %q: not a port", args[0], args[1])
		}
		if args[0] == inside.ForwardFlag {
			p.Forward = append(p.Forward, n)
		} else {
			p.Publish = append(p.Publish, n)
		}
		args = args[2:]
	}
	return p, args, nil
}

// Main runs claudebox as the sandbox's first process, its relay or ssh's
// way out, when args start with one of the hidden flags; ok is false
// otherwise.
func Main(args []string) (ok bool, err error) {
	if len(args) < 2 {
		return false, nil
	}
	if args[0] == inside.RelayExecFlag || args[0] == inside.ExecFlag {
		// Before the published ports' relay starts: it is the sandbox's
		// too.
		if err := limits.NoCores(); err != nil {
			return true, err
		}
	}
	switch args[0] {
	case inside.RelayExecFlag:
		handoff, err := strconv.Atoi(args[1])
		if err != nil || handoff < 3 {
			return true, fmt.Errorf("%s FD [PORTS] [LIMITS] -- COMMAND: %q: not a descriptor", inside.RelayExecFlag, args[1])
		}
		ports, rest, err := parsePorts(args[2:])
		noSockets, scope, rest := parseNoSockets(rest)
		var lims limits.Limits
		if err == nil {
			lims, rest, err = limits.Parse(rest)
		}
		if err != nil || len(rest) < 2 || rest[0] != "--" {
			return true, fmt.Errorf("%s FD [PORTS] [NO-SOCKETS] [LIMITS] -- COMMAND: %v", inside.RelayExecFlag, err)
		}
		return true, execBehind(handoff, ports, noSockets, scope, lims, rest[1:])
	case inside.ExecFlag:
		noSockets, scope, rest := parseNoSockets(args[1:])
		lims, rest, err := limits.Parse(rest)
		if err != nil || len(rest) < 2 || rest[0] != "--" {
			return true, fmt.Errorf("%s [NO-SOCKETS] [LIMITS] -- COMMAND: %v", inside.ExecFlag, err)
		}
		return true, execForeground(noSockets, scope, lims, rest[1:])
	case serveFlag:
		ports, rest, err := parsePorts(args[2:])
		if err != nil || len(rest) > 0 {
			return true, fmt.Errorf("%s SOCKET [PORTS]: %v", serveFlag, err)
		}
		return true, serve(args[1], ports)
	case inside.RelayConnectFlag:
		if len(args) != 3 {
			return true, fmt.Errorf("%s HOST PORT", inside.RelayConnectFlag)
		}
		return true, connectStdio(inside.ProxySocket, net.JoinHostPort(args[1], args[2]))
	}
	return false, nil
}

// execBehind listens on inside.RelayAddress and on the forwarded ports,
// hands the listeners out on the descriptor handoff, starts the published
// ports' relay if there are any, and execs command under the limits, which
// the relay is started before. The relay has a session of its own: the
// terminal's signals (Ctrl-C to interrupt Claude) are not for it.
func execBehind(handoff int, ports inside.Ports, noSockets []string, scope landlock.Scope, lims limits.Limits, command []string) error {
	var fds []int
	for _, a := range listenAddrs(ports) {
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
		r := exec.Command(self, append([]string{serveFlag, inside.ProxySocket}, inside.Ports{Publish: ports.Publish}.Args()...)...)
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

// listenAddrs are where the relay listens, in the order it hands the
// listeners out: inside.RelayAddress, then each forwarded port.
func listenAddrs(ports inside.Ports) []string {
	addrs := []string{inside.RelayAddress}
	for _, n := range ports.Forward {
		addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(n)))
	}
	return addrs
}

// listen is a listening TCP socket on addr (127.0.0.1:PORT), closed on
// exec: the command gets none of them.
func listen(addr string) (int, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err = unix.Bind(fd, &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err == nil {
		err = unix.Listen(fd, unix.SOMAXCONN)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// maxListeners bounds what Receive takes: the relay's own listener and
// the forwarded ports' (config.Forward's bound is far below).
const maxListeners = 64

// Receive takes the listeners the relay hands out on c, the supervisor's
// end of the handoff, for ports: each must be a listening TCP socket
// bound where listenAddrs says, in that order, or none is taken. The
// relay runs before the sandbox's command, so the first message is its;
// c is read once, and the caller closes it. ok is false, with no error,
// when the sandbox ended before its relay sent anything.
func Receive(c *net.UnixConn, ports inside.Ports) (listeners []net.Listener, ok bool, err error) {
	return receive(c, listenAddrs(ports))
}

// receive is Receive of listeners bound at addrs.
func receive(c *net.UnixConn, addrs []string) (listeners []net.Listener, ok bool, err error) {
	if len(addrs) > maxListeners {
		return nil, false, fmt.Errorf("%d listeners: more than %d", len(addrs), maxListeners)
	}
	oob := make([]byte, unix.CmsgSpace(4*maxListeners))
	n, oobn, flags, _, err := c.ReadMsgUnix(make([]byte, 1), oob)
	if n == 0 && oobn == 0 {
		return nil, false, nil
	}
	var fds []int
	if err == nil {
		fds, err = unixRights(oob[:oobn])
	}
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	switch {
	case err != nil:
		return nil, false, err
	case flags&unix.MSG_CTRUNC != 0:
		return nil, false, errors.New("more descriptors than listeners")
	case len(fds) != len(addrs):
		return nil, false, fmt.Errorf("%d descriptors for %d listeners", len(fds), len(addrs))
	}
	for i, fd := range fds {
		if err := isListener(fd, addrs[i]); err != nil {
			return nil, false, err
		}
	}
	for _, fd := range fds {
		f := os.NewFile(uintptr(fd), "relay")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			for _, l := range listeners {
				l.Close()
			}
			return nil, false, err
		}
		listeners = append(listeners, ln)
	}
	fds = nil // closed as f
	return listeners, true, nil
}

// unixRights are the descriptors in the control messages of oob.
func unixRights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// isListener says why fd is not a listening TCP socket bound at addr.
func isListener(fd int, addr string) error {
	domain, err1 := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	kind, err2 := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	listening, err3 := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
	if err := errors.Join(err1, err2, err3); err != nil || domain != unix.AF_INET || kind != unix.SOCK_STREAM || listening != 1 {
		return fmt.Errorf("the descriptor for %s is not a listening TCP socket", addr)
	}
	sa, err := unix.Getsockname(fd)
	in4, ok := sa.(*unix.SockaddrInet4)
	if err != nil || !ok || netip.AddrPortFrom(netip.AddrFrom4(in4.Addr), uint16(in4.Port)).String() != addr {
		return fmt.Errorf("the descriptor for %s is bound elsewhere", addr)
	}
	return nil
}

// serve parks connections for the published ports.
func serve(socket string, ports inside.Ports) error {
	signal.Ignore(unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGPIPE)
	for _, n := range ports.Publish {
		for range parkers {
			go publish(socket, n)
		}
	}
	// From here it waits, for the whole session: what its start used is
	// given back once the session has run a moment.
	idle.Wait(nil)
	select {}
}

// connectStdio is ssh's ProxyCommand: stdin and stdout joined to target
// through the proxy's CONNECT.
func connectStdio(socket, target string) error {
	p, read, err := request(socket, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if err != nil {
		return fmt.Errorf("claudebox: %s: %v", target, err)
	}
	defer p.Close()
	go func() {
		io.Copy(p, os.Stdin)
		p.(*net.UnixConn).CloseWrite()
	}()
	_, err = io.Copy(os.Stdout, read)
	return err
}

// parkers is how many connections the relay keeps parked for each
// published port: a browser opens several at once.
const parkers = 4

// publish keeps a connection parked for the published port: when the
// proxy answers it (a host client came), it is joined to the server
// inside and the next is parked.
func publish(socket string, port int) {
	target := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		p, read, err := request(socket, "GET "+PublishPathFor(port)+" HTTP/1.1\r\nHost: claudebox\r\n\r\n")
		if err != nil {
			// The proxy is gone or refuses: the session is ending.
			time.Sleep(time.Second)
			continue
		}
		go func() {
			defer p.Close()
			c, err := net.Dial("tcp", target)
			if err != nil {
				return
			}
			defer c.Close()
			pipe.Join(p, read, c)
		}()
	}
}

// PublishPathFor is the request that parks a connection for port.
func PublishPathFor(port int) string { return proxy.PublishPath + strconv.Itoa(port) }

// request sends head on a new connection to the proxy's socket and reads
// the answer: only a 200 leaves the connection open, with what was read
// ahead of the tunnel in read.
func request(socket, head string) (net.Conn, *bufio.Reader, error) {
	p, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.WriteString(p, head); err != nil {
		p.Close()
		return nil, nil, err
	}
	read := bufio.NewReader(p)
	resp, err := http.ReadResponse(read, nil)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		p.Close()
		return nil, nil, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return p, read, nil
}
