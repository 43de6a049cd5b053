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
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/claudebox/claudebox/internal/pipe"
	"golang.org/x/sys/unix"
)

// Address is where the relay listens inside the sandbox: the proxy's
// address there, for HTTPS_PROXY and ANTHROPIC_BASE_URL alike.
const Address = "127.0.0.1:3128"

// The hidden flags claudebox runs with inside the sandbox.
const (
	// ExecFlag SOCKET -- COMMAND...: listen, start the relay, exec COMMAND.
	ExecFlag = "--relay-exec"
	// serveFlag SOCKET: be the relay, on the listener at descriptor 3.
	serveFlag = "--relay-serve"
)

// Main runs claudebox as the sandbox's first process or as its relay, when
// args start with one of the hidden flags; ok is false otherwise.
func Main(args []string) (ok bool, err error) {
	switch {
	case len(args) >= 4 && args[0] == ExecFlag && args[2] == "--":
		return true, execBehind(args[1], args[3:])
	case len(args) == 2 && args[0] == serveFlag:
		return true, serve(args[1])
	}
	return false, nil
}

// execBehind listens on Address, starts the relay with the listener, and
// execs command. The relay has a session of its own: the terminal's
// signals (Ctrl-C to interrupt Claude) are not for it.
func execBehind(socket string, command []string) error {
	ln, err := net.Listen("tcp", Address)
	if err != nil {
		return fmt.Errorf("the network relay cannot listen on %s: %v", Address, err)
	}
	f, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := exec.Command(self, serveFlag, socket)
	r.ExtraFiles = []*os.File{f}
	r.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := r.Start(); err != nil {
		return fmt.Errorf("cannot start the network relay: %v", err)
	}
	f.Close()
	path, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	return unix.Exec(path, command, os.Environ())
}

// serve forwards every connection on descriptor 3 to the proxy's socket.
func serve(socket string) error {
	signal.Ignore(unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGPIPE)
	ln, err := net.FileListener(os.NewFile(3, "relay"))
	if err != nil {
		return err
	}
	return relayTo(ln, socket)
}

// relayTo forwards every connection on ln to the proxy's socket.
func relayTo(ln net.Listener, socket string) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			continue
		}
		go forward(c, socket)
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
