package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
)

// parsePublish reads --publish [HOSTPORT:]PORT.
func parsePublish(s string) (mount.Publish, error) {
	host, inside, found := strings.Cut(s, ":")
	if !found {
		host, inside = s, s
	}
	var p mount.Publish
	var err error
	if p.Host, err = parsePortNumber(host); err != nil {
		return p, err
	}
	if p.Inside, err = parsePort(inside); err != nil {
		return p, err
	}
	return p, nil
}

// parsePort reads a port of the sandbox's loopback: not the relay's own.
func parsePort(s string) (int, error) {
	n, err := parsePortNumber(s)
	if err != nil {
		return 0, err
	}
	if s == inside.RelayPort {
		return 0, errors.New("the port of the filtered network's proxy inside")
	}
	return n, nil
}

// parsePortNumber reads a port of the host's loopback, where the relay's
// port inside is an ordinary one.
func parsePortNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, errors.New("not a port from 1 to 65535")
	}
	return n, nil
}

// ports adds a layer's published and forwarded ports; a later publish
// replaces an earlier one at the same host port or the same port inside
// (one host listener per server inside). What a repository's file adds
// waits for approval.
func (m *merging) ports(l layer) error {
	for _, s := range l.Publish {
		p, err := parsePublish(s)
		if err != nil {
			return hint.Errorf(`publish = ["8080", "9000:3000"]: a port inside, after the host's port if it differs`, "%s: publish: \"%s\": %v", where(l.from), printable.Excerpt(s), err)
		}
		m.out.Publish = slices.DeleteFunc(m.out.Publish, func(o mount.Publish) bool { return o.Host == p.Host || o.Inside == p.Inside })
		m.out.Publish = append(m.out.Publish, p)
		m.addPort(l, Item{grant: Grant{kind: kindPublish, name: p.String()}, Show: "publish " + p.String() + " (from " + l.from + ")"})
	}
	for _, s := range l.Forward {
		n, err := parsePort(s)
		if err != nil {
			return hint.Errorf(`forward = ["5432"]: a port of the host's 127.0.0.1`, "%s: forward: \"%s\": %v", where(l.from), printable.Excerpt(s), err)
		}
		if !slices.Contains(m.out.Forward, n) {
			m.out.Forward = append(m.out.Forward, n)
		}
		m.addPort(l, Item{grant: Grant{kind: kindForward, name: strconv.Itoa(n)}, Show: "forward " + strconv.Itoa(n) + " (from " + l.from + ")"})
	}
	return nil
}

// addPort notes a port for approval: the user's own need none, whichever
// layer named them first.
func (m *merging) addPort(l layer, it Item) {
	if l.own {
		m.ownPorts[it.grant] = true
		return
	}
	m.portItems = append(m.portItems, it)
}

// waitingPorts are the ports a repository's file adds that the user's own
// settings do not ask for.
func (m *merging) waitingPorts() []Item {
	var items []Item
	for _, it := range m.portItems {
		if !m.ownPorts[it.grant] && !slices.ContainsFunc(items, func(o Item) bool { return o.grant == it.grant }) {
			items = append(items, it)
		}
	}
	return items
}

// portsCross refuses a port both forwarded and published, on either side:
// the sandbox's connections to it would reach the host's listener and come
// back inside, in a loop until the proxy's slots run out.
func portsCross(publish []mount.Publish, forward []int) error {
	for _, n := range forward {
		if slices.ContainsFunc(publish, func(p mount.Publish) bool { return p.Host == n || p.Inside == n }) {
			return hint.Errorf("a port is a server inside (--publish) or one of the host's (--forward), not both", "port %d is both published and forwarded", n)
		}
	}
	return nil
}
