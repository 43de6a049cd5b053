package mount

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/limits"
)

// Relay is what the filtered network needs inside: claudebox itself, the
// sandbox's first process, as its relay, and the supervisor's proxy
// socket, the only way out of the sandbox's network namespace.
type Relay struct {
	// Socket is the proxy's socket on the host.
	Socket string
	// Forward are the host's loopback ports reachable inside (--forward);
	// Publish, the servers inside reachable from the host (--publish).
	Forward []int
	Publish []Publish
}

// Publish is a published port: the server inside on 127.0.0.1:Inside,
// reached from the host's 127.0.0.1:Host, which the supervisor binds.
type Publish struct{ Host, Inside int }

// String writes it as --publish reads it: HOST:INSIDE.
func (p Publish) String() string { return strconv.Itoa(p.Host) + ":" + strconv.Itoa(p.Inside) }

// ports are the ports the relay inside serves.
func (r *Relay) ports() inside.Ports {
	ports := inside.Ports{Forward: r.Forward}
	for _, p := range r.Publish {
		ports.Publish = append(ports.Publish, p.Inside)
	}
	return ports
}

// proxyURL is the relay's address, where the tools inside find the proxy.
const proxyURL = "http://" + inside.RelayAddress

// ProxyEnv is what makes the tools inside use the relay without being
// configured: curl, git, pip, go, cargo and npm read the *_proxy
// variables (some only the lower-case ones, some only the upper-case),
// Node's own fetch and http needs NODE_USE_ENV_PROXY. Loopback stays
// direct: it is the sandbox's own.
var ProxyEnv = []string{
	"HTTPS_PROXY=" + proxyURL, "https_proxy=" + proxyURL,
	"HTTP_PROXY=" + proxyURL, "http_proxy=" + proxyURL,
	"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
	"NODE_USE_ENV_PROXY=1",
}

// sshCommand is git's ssh under the filtered network with --with-ssh: its
// connection goes as a CONNECT through the relay's socket, by claudebox
// itself as ssh's ProxyCommand, to what the allow list lets through on
// port 22 (or the port the remote names). The user's ssh config is hidden
// inside; this is the only ssh setting made.
const sshCommand = `ssh -o "ProxyCommand=` + inside.Exe + ` ` + inside.RelayConnectFlag + ` %h %p"`

// relayEnv is what the relay's network sets inside: the proxy variables,
// and with the SSH agent git's ssh through the proxy.
func (p Plan) relayEnv() []string {
	if p.Relay == nil {
		return nil
	}
	if p.SSHAgent {
		return append(slices.Clone(ProxyEnv), "GIT_SSH_COMMAND="+sshCommand)
	}
	return ProxyEnv
}

// setByRelay says the relay's environment sets name: a value the user
// passes for it would lead the tools past the relay, into nothing.
func (p Plan) setByRelay(name string) bool {
	for _, kv := range p.relayEnv() {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// APIURL is ANTHROPIC_BASE_URL inside on the filtered network: the relay,
// which the proxy tells from the way out by the request's form.
const APIURL = proxyURL

// relayMount is the relay's bind.
func relayMount(r *Relay) Mount {
	return Mount{Kind: RoBind, Src: r.Socket, Dest: inside.ProxySocket, Why: "the proxy's socket: the filtered network's only way out", Role: Private}
}

// firstCommand is the command run behind claudebox, the sandbox's first
// process, which makes it the terminal's foreground job: in bwrap's own
// process group the kernel drops Claude's kill(0, SIGTSTP), and Ctrl-Z
// stops nothing. On the filtered network claudebox first hands its
// listeners out on the descriptor handoff. It sets the limits on itself
// once its published ports' relay runs (which they would break: a Go
// program whose thread cannot start aborts) and before the command, and
// takes from it the right to make a socket below noSockets, and to reach
// the host's abstract sockets unless desktopSockets.
func firstCommand(r *Relay, handoff int, l limits.Limits, noSockets []string, desktopSockets bool, command []string) []string {
	args := []string{inside.Exe, inside.ExecFlag}
	if r != nil {
		args = append([]string{inside.Exe, inside.RelayExecFlag, strconv.Itoa(handoff)}, r.ports().Args()...)
	}
	for _, d := range noSockets {
		args = append(args, inside.NoSocketsFlag, d)
	}
	if desktopSockets {
		args = append(args, inside.DesktopSocketsFlag)
	}
	args = append(args, l.Args()...)
	return append(append(args, "--"), command...)
}

// PortLines say what each forwarded and published port does, for
// --dry-run.
func (r *Relay) PortLines() []string {
	var lines []string
	for _, n := range r.Forward {
		lines = append(lines, fmt.Sprintf("--forward %d: 127.0.0.1:%d inside reaches the host's 127.0.0.1:%d, through the proxy", n, n, n))
	}
	for _, p := range r.Publish {
		lines = append(lines, fmt.Sprintf("--publish %s: the host's 127.0.0.1:%d, bound by claudebox, reaches 127.0.0.1:%d inside, through the proxy", p, p.Host, p.Inside))
	}
	return lines
}
