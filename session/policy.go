package session

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/proxy"
)

// Policy is what a launch lets in and out, in words, one line each, for
// --dry-run to print first: the network mode, the hosts it allows and
// denies (grouped by where each is written), the ports, the MCP servers
// carried in, the agent, and how many guards stand.
func (s *Session) Policy() []string {
	var lines []string
	switch {
	case s.plan.Relay != nil:
		lines = append(lines, "network: filtered: a network of its own whose one way out is claudebox's proxy, to the allowed hosts but the denied")
		lines = append(lines, ruleLines("allowed", s.hosts.Allow)...)
		lines = append(lines, ruleLines("denied", s.hosts.Deny)...)
		lines = append(lines, "the agent's API: only through the proxy's injecting path, with this session's phantom credential, never by CONNECT")
		lines = append(lines, s.portLines()...)
	case s.plan.Network:
		lines = append(lines, "network: host: the host's network as it is, no host list applies; the agent's API through the proxy on the host's 127.0.0.1")
	default:
		lines = append(lines, "network: none: loopback only, no way out")
	}
	mcp := "none"
	if len(s.mcp) > 0 {
		mcp = strings.Join(slices.Sorted(maps.Keys(s.mcp)), ", ")
	}
	lines = append(lines, "MCP servers carried in: "+mcp)
	if s.shell {
		lines = append(lines, "agent: none, a shell (--shell)")
	} else {
		lines = append(lines, "agent: "+s.agent.Title+" ("+s.agent.Program+")")
	}
	missing := 0
	for _, g := range s.plan.Guards {
		if !g.Exists {
			missing++
		}
	}
	lines = append(lines, fmt.Sprintf("guards: %d paths the host runs or obeys, read-only inside (%d missing, a stand-in in their place)", len(s.plan.Guards), missing))
	for i, l := range lines {
		lines[i] = printable.Escape(l)
	}
	return lines
}

// ruleLines lists rules by where each is written, in the order the first
// of each source comes.
func ruleLines(what string, rules []proxy.Rule) []string {
	var sources []string
	bySource := map[string][]string{}
	for _, r := range rules {
		src := r.Source()
		if src == "" {
			src = "claudebox"
		}
		if _, ok := bySource[src]; !ok {
			sources = append(sources, src)
		}
		bySource[src] = append(bySource[src], r.String())
	}
	if len(sources) == 0 {
		return []string{what + ": none"}
	}
	var lines []string
	for _, src := range sources {
		lines = append(lines, what+" by "+src+": "+strings.Join(bySource[src], ", "))
	}
	return lines
}

// portLines say which ports cross the filtered network.
func (s *Session) portLines() []string {
	var published, forwarded []string
	for _, p := range s.plan.Relay.Publish {
		published = append(published, fmt.Sprintf("the host's 127.0.0.1:%d to %d inside", p.Host, p.Inside))
	}
	for _, n := range s.plan.Relay.Forward {
		forwarded = append(forwarded, strconv.Itoa(n))
	}
	if len(published) == 0 && len(forwarded) == 0 {
		return []string{"ports: none published or forwarded"}
	}
	var lines []string
	if len(published) > 0 {
		lines = append(lines, "published: "+strings.Join(published, ", "))
	}
	if len(forwarded) > 0 {
		lines = append(lines, "forwarded: the host's 127.0.0.1:"+strings.Join(forwarded, ", 127.0.0.1:")+", reached inside at the same port")
	}
	return lines
}
