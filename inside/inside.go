// Package inside names where the sandbox's parts are inside it:
// claudebox's own executable, the filtered network's proxy socket and
// relay address, and the hidden flags claudebox runs with there. A leaf: the plan writes them
// into the sandbox's command line, the relay reads them back, and neither
// drags in the other's imports.
package inside

import "strconv"

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
