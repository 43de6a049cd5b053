// Package relay is the filtered network's door inside the sandbox. The
// sandbox has a network namespace of its own, with loopback only; its first
// process (package firstprocess) listens on the sandbox's 127.0.0.1 (and
// the forwarded ports) and hands the listeners out to the supervisor over
// a socket bwrap passed it, which the supervisor takes (Receive), then
// becomes the command. The supervisor's proxy accepts on them: no process
// of claudebox's stays inside, but with published ports, whose relay
// (Main) parks connections on the proxy's Unix socket, bound in. The
// agent can close nothing of the supervisor's: at worst it fills the
// proxy's bound on connections, as through that socket.
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
	"os/signal"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/internal/idle"
	"github.com/claudebox/claudebox/internal/pipe"
	"github.com/claudebox/claudebox/proxy"
)

// Main runs claudebox as the published ports' relay or ssh's way out,
// when args start with one of their hidden flags; ok is false otherwise.
// (As the sandbox's first process it never gets here: package
// firstprocess runs it.)
func Main(args []string) (ok bool, err error) {
	if len(args) < 2 {
		return false, nil
	}
	switch args[0] {
	case inside.ServeFlag:
		ports, rest, err := inside.ParsePorts(args[2:])
		if err != nil || len(rest) > 0 {
			return true, fmt.Errorf("%s SOCKET [PORTS]: %v", inside.ServeFlag, err)
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
	return receive(c, inside.ListenAddrs(ports))
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
