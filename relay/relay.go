// Package relay is the filtered network's door inside the sandbox. The
// sandbox has a network namespace of its own, with loopback only; claudebox
// itself, bound read-only into it, runs as its first process: it listens on
// the sandbox's 127.0.0.1, hands the listener to a relay process of its own
// and becomes the command. The relay forwards each connection to the
// supervisor's proxy, whose Unix socket is bound in. The agent can kill the
// relay: then nothing listens, every connection is refused at once, and
// there is no other way out.
package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/internal/idle"
	"github.com/claudebox/claudebox/internal/pipe"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/proxy"
)

// serveFlag SOCKET [PORTS]: be the relay, on the listeners at descriptor 3
// (inside.RelayAddress) and on (the forwarded ports').
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
	switch args[0] {
	case inside.RelayExecFlag:
		ports, rest, err := parsePorts(args[2:])
		var lims limits.Limits
		if err == nil {
			lims, rest, err = limits.Parse(rest)
		}
		if err != nil || len(rest) < 2 || rest[0] != "--" {
			return true, fmt.Errorf("%s SOCKET [PORTS] [LIMITS] -- COMMAND: %v", inside.RelayExecFlag, err)
		}
		return true, execBehind(args[1], ports, lims, rest[1:])
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

// execBehind listens on inside.RelayAddress and on the forwarded ports, starts the
// relay with the listeners, and execs command under the limits, which the
// relay is started before. The relay has a session of its own: the
// terminal's signals (Ctrl-C to interrupt Claude) are not for it.
func execBehind(socket string, ports inside.Ports, lims limits.Limits, command []string) error {
	addrs := []string{inside.RelayAddress}
	for _, n := range ports.Forward {
		addrs = append(addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(n)))
	}
	var files []*os.File
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("the network relay cannot listen on %s: %v", a, err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := exec.Command(self, append([]string{serveFlag, socket}, ports.Args()...)...)
	r.ExtraFiles = files
	r.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := r.Start(); err != nil {
		return fmt.Errorf("cannot start the network relay: %v", err)
	}
	for _, f := range files {
		f.Close()
	}
	path, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	return limits.Exec(lims, path, command, os.Environ())
}

// serve forwards every connection on descriptor 3 to the proxy's socket,
// every one on the next descriptors to the forwarded ports through it, and
// parks connections for the published ports.
func serve(socket string, ports inside.Ports) error {
	signal.Ignore(unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGPIPE)
	listener := func(fd int) (net.Listener, error) { return net.FileListener(os.NewFile(uintptr(fd), "relay")) }
	ln, err := listener(3)
	if err != nil {
		return err
	}
	for i, n := range ports.Forward {
		fl, err := listener(4 + i)
		if err != nil {
			return err
		}
		target := net.JoinHostPort("127.0.0.1", strconv.Itoa(n))
		go accept(fl, func(c net.Conn) { forwardTo(c, socket, target) })
	}
	for _, n := range ports.Publish {
		for range parkers {
			go publish(socket, n)
		}
	}
	// From here it waits for connections, for the whole session: what its
	// start used is given back once the session has run a moment.
	time.AfterFunc(idle.After, idle.Release)
	return relayTo(ln, socket)
}

// relayTo forwards every connection on ln to the proxy's socket.
func relayTo(ln net.Listener, socket string) error {
	return accept(ln, func(c net.Conn) { forward(c, socket) })
}

// accept hands every connection on ln to handle, until ln closes.
func accept(ln net.Listener, handle func(net.Conn)) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			continue
		}
		go handle(c)
	}
}

// forward joins c to a new connection to the proxy: if the proxy is gone,
// c is closed at once.
func forward(c net.Conn, socket string) {
	defer c.Close()
	p, err := net.Dial("unix", socket)
	if err != nil {
		return
	}
	defer p.Close()
	pipe.Join(c, c, p)
}

// forwardTo joins c to target (the host's loopback) through the proxy's
// CONNECT. The proxy, not the relay, decides what may be reached: the
// agent can replace the relay.
func forwardTo(c net.Conn, socket, target string) {
	defer c.Close()
	p, read, err := request(socket, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	if err != nil {
		return
	}
	defer p.Close()
	pipe.Join(p, read, c)
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
