package session

import (
	"net"
	"strconv"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/proxy"
)

// forwardRules let the proxy reach the forwarded ports of the host's
// loopback, by address, as an allow-hosts entry 127.0.0.1:PORT would: the
// relay inside asks for them by CONNECT, and the proxy, not the relay,
// decides (the agent can replace the relay).
func forwardRules(ports []int) []proxy.Rule {
	var rules []proxy.Rule
	for _, n := range ports {
		r, err := proxy.ParseRule("127.0.0.1:" + strconv.Itoa(n))
		if err != nil {
			panic(err)
		}
		rules = append(rules, r.From("--forward "+strconv.Itoa(n)))
	}
	return rules
}

// portsNote says why --publish and --forward do nothing on the host's
// network or none.
func portsNote(conf config.Launch) string {
	if len(conf.Publish) == 0 && len(conf.Forward) == 0 {
		return ""
	}
	switch conf.Network {
	case config.NetworkHost:
		return "--publish and --forward are not needed with --network=host: the sandbox's 127.0.0.1 is the host's"
	case config.NetworkNone:
		return "--publish and --forward do nothing with --network=none: the sandbox has no way out or in"
	}
	return ""
}

// publish binds the host's side of each published port, on 127.0.0.1 only,
// and hands it to the proxy: the port is the user's choice, never the
// sandbox's.
func (s *Session) publish(p *proxy.Proxy) error {
	if s.plan.Relay == nil {
		return nil
	}
	for _, pub := range s.plan.Relay.Publish {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(pub.Host)))
		if err != nil {
			return hint.Errorf("choose another host port: --publish HOSTPORT:"+strconv.Itoa(pub.Inside), "--publish %s: cannot listen on the host's 127.0.0.1:%d: %v", pub, pub.Host, err)
		}
		p.Publish(ln, pub.Inside)
	}
	return nil
}

// PortsNote says why the ports asked for are not set up, if they are not.
func (s *Session) PortsNote() string { return s.portsNote }
