// Package inside names where the sandbox's parts are inside it:
// claudebox's own executable, the filtered network's proxy socket and
// relay address, and the hidden flags claudebox runs with there. A leaf:
// the plan writes them into the sandbox's command line, the first process
// and the relay read them back, and none drags in another's imports.
package inside

import (
	"fmt"
	"strconv"
)

// Exe is where claudebox itself is bound, the sandbox's first process. It
// keeps its name: the name is what runs it as claudebox (and, in tests,
// as the test binary's claudebox).
const Exe = "/run/claudebox/claudebox"

// ProxySocket is where the supervisor's proxy socket is bound.
const ProxySocket = "/run/claudebox/proxy.sock"

// RelayAddress is where the relay listens: the proxy's address inside,
// for HTTPS_PROXY and ANTHROPIC_BASE_URL alike; RelayPort, its port.
const (
	RelayAddress = "127.0.0.1:" + RelayPort
	RelayPort    = "3128"
)

// The hidden flags claudebox runs with inside the sandbox.
const (
	// RelayExecFlag SOCKET [PORTS] [NO-SOCKETS] [LIMITS] -- COMMAND...:
	// listen, start the relay, exec COMMAND as ExecFlag does.
	RelayExecFlag = "--relay-exec"
	// ExecFlag [NO-SOCKETS] [LIMITS] -- COMMAND...: exec COMMAND under the
	// limits, as the terminal's foreground job, unable to make a socket
	// below the directories NO-SOCKETS names.
	ExecFlag = "--sandbox-exec"
	// NoSocketsFlag DIR, repeated, among the NO-SOCKETS: a directory no
	// socket is made in or below (the project: a host client pointed at a
	// socket there would talk to the sandbox's listener).
	NoSocketsFlag = "--no-sockets"
	// DesktopSocketsFlag, among the NO-SOCKETS: the command's Landlock
	// domain leaves the host's abstract sockets reachable (the user's
	// --with-desktop-sockets); it scopes signals still.
	DesktopSocketsFlag = "--desktop-sockets"
	// RelayConnectFlag HOST PORT: join stdin and stdout to HOST:PORT
	// through the proxy, as ssh's ProxyCommand.
	RelayConnectFlag = "--relay-connect"
	// ServeFlag SOCKET [PORTS]: be the published ports' relay.
	ServeFlag = "--relay-serve"
	// ForwardFlag PORT and PublishFlag PORT, among the PORTS: the host's
	// 127.0.0.1:PORT reachable inside on 127.0.0.1:PORT; the server inside
	// on 127.0.0.1:PORT reachable from the host.
	ForwardFlag = "--forward"
	PublishFlag = "--publish"
)

// Ports are the forwarded and published ports the relay serves.
type Ports struct {
	Forward, Publish []int
}

// Args are the ports as the hidden flags carry them.
func (p Ports) Args() []string {
	var args []string
	for _, n := range p.Forward {
		args = append(args, ForwardFlag, strconv.Itoa(n))
	}
	for _, n := range p.Publish {
		args = append(args, PublishFlag, strconv.Itoa(n))
	}
	return args
}

// ParsePorts reads what Ports.Args writes, up to "--" or the end: the
// ports and the words after them.
func ParsePorts(args []string) (Ports, []string, error) {
	var p Ports
	for len(args) >= 2 && (args[0] == ForwardFlag || args[0] == PublishFlag) {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > 65535 {
			return p, nil, fmt.Errorf("%s %q: not a port", args[0], args[1])
		}
		if args[0] == ForwardFlag {
			p.Forward = append(p.Forward, n)
		} else {
			p.Publish = append(p.Publish, n)
		}
		args = args[2:]
	}
	return p, args, nil
}

// ListenAddrs are where the relay listens, in the order it hands the
// listeners out: RelayAddress, then each forwarded port.
func ListenAddrs(ports Ports) []string {
	addrs := []string{RelayAddress}
	for _, n := range ports.Forward {
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(n))
	}
	return addrs
}
