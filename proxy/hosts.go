package proxy

import (
	"cmp"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// DeveloperPreset is the allow list a sandbox starts with under the filtered
// network: what developers fetch with git, npm, pip, go and cargo.
var DeveloperPreset = []string{
	// GitHub: the site, git over HTTPS and over SSH (--with-ssh; its SSH
	// over port 443 named, as --with-ssh's agent signs a login only to a
	// server named with its port), the API, release downloads, raw files.
	"github.com", "github.com:22", "ssh.github.com:443", "*.github.com", "*.githubusercontent.com", "codeload.github.com",
	// npm's registry.
	"registry.npmjs.org",
	// PyPI: the index and the files.
	"pypi.org", "files.pythonhosted.org",
	// The Go module proxy and checksum database.
	"proxy.golang.org", "sum.golang.org",
	// Rust's crate registry: the index, the API and the downloads.
	"crates.io", "index.crates.io", "static.crates.io",
}

// Rule is one entry of allow-hosts or deny-hosts: a host name, *.domain
// (its subdomains, not the domain itself) or an IP address, with a port or
// without one (then 443 and 80).
type Rule struct {
	host     string // a normalised name, or "" for an address
	addr     netip.Addr
	wildcard bool
	port     int // 0: 443 and 80
	// anyPort: a deny entry without a port, which covers every port.
	anyPort bool
	// source says where the entry is written, for a refusal that names
	// it and for --dry-run: "deny-hosts in FILE:LINE".
	source string
}

// From is r noted as written at source ("deny-hosts in FILE:LINE").
func (r Rule) From(source string) Rule {
	r.source = source
	return r
}

// Source is where the entry is written ("" when unknown).
func (r Rule) Source() string { return r.source }

// ParseRule reads an entry as Claude Code's sandbox.network lists write
// them: host, *.domain, an IP address, each with an optional :port.
func ParseRule(s string) (Rule, error) {
	var r Rule
	hostPart, portPart, err := splitHostPort(s)
	if err != nil {
		return r, err
	}
	if portPart != "" {
		if r.port, err = parsePort(portPart); err != nil {
			return r, err
		}
	}
	if rest, ok := strings.CutPrefix(hostPart, "*."); ok {
		r.wildcard = true
		hostPart = rest
	}
	if a, err := netip.ParseAddr(strings.Trim(hostPart, "[]")); err == nil {
		if r.wildcard {
			return r, errors.New("a wildcard covers names, not addresses")
		}
		r.addr = a.Unmap()
		return r, nil
	}
	if r.host, err = NormalizeHost(hostPart); err != nil {
		return r, err
	}
	if r.wildcard && looksNumeric(r.host) {
		return r, errors.New("a wildcard covers names, not addresses")
	}
	return r, nil
}

// String writes the rule as ParseRule reads it, normalised.
func (r Rule) String() string {
	s := r.host
	if r.wildcard {
		s = "*." + s
	}
	if s == "" {
		s = r.addr.String()
		if r.port != 0 && r.addr.Is6() {
			s = "[" + s + "]"
		}
	}
	if r.port != 0 {
		s += ":" + strconv.Itoa(r.port)
	}
	return s
}

// splitHostPort splits host[:port], [v6]:port or a bare IPv6 address.
func splitHostPort(s string) (string, string, error) {
	if _, err := netip.ParseAddr(s); err == nil {
		return s, "", nil
	}
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return "", "", errors.New("an unclosed [")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, "", nil
		}
		port, ok := strings.CutPrefix(rest, ":")
		if !ok {
			return "", "", errors.New("junk after ]")
		}
		return host, port, nil
	}
	host, port, found := strings.Cut(s, ":")
	if found && port == "" {
		return "", "", errors.New("an empty port")
	}
	return host, port, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, errors.New("the port is not a number from 1 to 65535")
	}
	return n, nil
}

// NormalizeHost is a host name as the allow list compares it: lower case,
// without one trailing dot, made of DNS labels only. Anything else (NUL, %,
// spaces, user@, *, an empty label) is refused rather than guessed at.
func NormalizeHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || len(h) > 253 {
		return "", errors.New("not a host name")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", errors.New("not a host name (an empty or overlong label)")
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", errors.New("not a host name (a character no host name holds: " + strconv.QuoteRune(rune(c)) + ")")
			}
		}
	}
	return h, nil
}

// looksNumeric says a name ends in a numeric label, as an IPv4 address
// does: *.0.0.10 is an address range in disguise.
func looksNumeric(h string) bool {
	last := h[strings.LastIndex(h, ".")+1:]
	_, err := strconv.Atoi(last)
	return err == nil
}

// matchesPort says the rule covers port.
func (r Rule) matchesPort(port int) bool {
	if r.anyPort {
		return true
	}
	if r.port == 0 {
		return port == 443 || port == 80
	}
	return r.port == port
}

// matchesName says the rule covers the name host (normalised) at port.
func (r Rule) matchesName(host string, port int) bool {
	if r.host == "" || !r.matchesPort(port) {
		return false
	}
	if r.wildcard {
		return strings.HasSuffix(host, "."+r.host)
	}
	return host == r.host
}

// matchesAddr says the rule names the address a exactly, at port.
func (r Rule) matchesAddr(a netip.Addr, port int) bool {
	return r.host == "" && r.addr == a && r.matchesPort(port)
}

// Policy is the filtered network's allow and deny lists; deny wins.
type Policy struct {
	Allow, Deny []Rule
	// Never are the API's own hosts: reachable only through the injecting
	// path, else the agent could bring its own key.
	Never []string
	// NeverAt are the addresses and port of a base URL that names its
	// host by address or as localhost (a local gateway's
	// http://127.0.0.1:4000): an allowed localhost:4000 or 127.0.0.1:4000
	// reaches it by another spelling, so it is refused at the address.
	NeverAt []netip.AddrPort
	// onLink are the networks of the host's own interfaces (see
	// hostNetworks), whose addresses are internal whatever their range.
	onLink []netip.Prefix
	// nat64 are the prefixes the host's network translates to IPv4
	// besides the standard ones (see nat64Prefixes).
	nat64 []embedding
}

// target is where a request asks to go: a normalised name or an address.
type target struct {
	host string
	addr netip.Addr
	port int
}

func (t target) String() string {
	if t.host != "" {
		return t.host + ":" + strconv.Itoa(t.port)
	}
	return netip.AddrPortFrom(t.addr, uint16(t.port)).String()
}

// parseTarget reads a CONNECT target or an absolute URL's host: host:port
// (the port given, or def).
func parseTarget(hostport string, def int) (target, error) {
	var t target
	host, port, err := splitHostPort(hostport)
	if err != nil {
		return t, err
	}
	t.port = def
	if port != "" {
		if t.port, err = parsePort(port); err != nil {
			return t, err
		}
	}
	if t.port == 0 {
		return t, errors.New("no port")
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if a.Zone() != "" {
			return t, errors.New("an address with a zone")
		}
		t.addr = a.Unmap()
		return t, nil
	}
	t.host, err = NormalizeHost(host)
	return t, err
}

// allows says the lists let t through, by name or address, before any
// name is resolved.
func (p Policy) allows(t target) bool {
	if t.host != "" && slices.Contains(p.Never, t.host) || t.host == "" && p.neverAt(t.addr, t.port) {
		return false
	}
	match := func(r Rule) bool {
		if t.host != "" {
			return r.matchesName(t.host, t.port)
		}
		return r.matchesAddr(t.addr, t.port)
	}
	return !slices.ContainsFunc(p.Deny, func(r Rule) bool { return match(r.denying()) }) && slices.ContainsFunc(p.Allow, match)
}

// denyingEntry is the deny entry that refuses t by its name or address.
func (p Policy) denyingEntry(t target) (Rule, bool) {
	i := slices.IndexFunc(p.Deny, func(r Rule) bool {
		if t.host != "" {
			return r.denying().matchesName(t.host, t.port)
		}
		return r.denying().matchesAddr(t.addr, t.port)
	})
	if i < 0 {
		return Rule{}, false
	}
	return p.Deny[i], true
}

// denying is r as a deny entry reads it: without a port it covers every
// port, where an allow entry without one means 443 and 80.
func (r Rule) denying() Rule {
	if r.port == 0 {
		r.anyPort = true
	}
	return r
}

// addressAllowed says the proxy may dial a, one of the addresses t
// resolved to: a public address unless it is denied, an internal one
// (loopback, private, link-local, CGNAT, a cloud's metadata service, one
// on a network of the host's own, or an IPv6 address carrying such an
// IPv4 one) only when the allow list names it exactly, or names
// localhost:PORT.
func (p Policy) addressAllowed(t target, a netip.Addr) bool {
	a = a.Unmap()
	if _, denied := p.denyingAddr(a, t.port); denied {
		return false
	}
	if !slices.ContainsFunc(p.reached(a), p.inside) {
		return true
	}
	if slices.ContainsFunc(p.Allow, func(r Rule) bool { return r.matchesAddr(a, t.port) }) {
		return true
	}
	return a.IsLoopback() && t.host == "localhost" &&
		slices.ContainsFunc(p.Allow, func(r Rule) bool { return r.host == "localhost" && r.port == t.port })
}

// denyingAddr is the deny entry that names a, or the IPv4 address it
// carries, at port.
func (p Policy) denyingAddr(a netip.Addr, port int) (Rule, bool) {
	for _, r := range p.reached(a) {
		if i := slices.IndexFunc(p.Deny, func(d Rule) bool { return d.denying().matchesAddr(r, port) }); i >= 0 {
			return p.Deny[i], true
		}
	}
	return Rule{}, false
}

// inside says a reaches the host or its network: no public host has it,
// or it is on a network of the host's own interfaces.
func (p Policy) inside(a netip.Addr) bool {
	return internal(a) || slices.ContainsFunc(p.onLink, func(n netip.Prefix) bool { return n.Contains(a) })
}

// hostNetworks are the networks the host's interfaces are on, each
// address with its prefix: the host's own public address (a server's, a
// machine's global IPv6) reaches the host's services listening on all
// interfaces, and its network the machines beside it, which a global
// IPv6 prefix leaves public by range. Read at each connection, so that an
// interface that comes up later (a VPN) counts too.
func hostNetworks() []netip.Prefix {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var nets []netip.Prefix
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		ones, bits := n.Mask.Size()
		if !ok || bits == 0 {
			continue
		}
		ip = ip.Unmap()
		if ip.Is4() && bits == 128 {
			ones -= 96
		}
		nets = append(nets, netip.PrefixFrom(ip, ones).Masked())
	}
	return nets
}

// internal says a is not a public internet address: what DNS rebinding
// would point an allowed name at.
func internal(a netip.Addr) bool {
	a = a.Unmap()
	// Not global unicast: loopback, link-local (169.254.169.254 among
	// them), multicast, unspecified. Private: 10/8, 172.16/12, 192.168/16
	// and fc00::/7 (fd00:ec2::254 among them).
	return !a.IsGlobalUnicast() || a.IsPrivate() || slices.ContainsFunc(notGlobal, func(p netip.Prefix) bool { return p.Contains(a) })
}

// notGlobal are the other ranges that IANA's registries of
// special-purpose addresses say no public host has, or deprecate: what
// is known public passes, not what is known internal (192.0.0.2 is a
// DS-Lite router's own address; this project's CI machine sits on the
// documentation range 192.0.2.0/24).
var notGlobal = []netip.Prefix{
	// IPv4: "this network", CGNAT (a provider's network), the IETF's
	// protocol assignments (DS-Lite, NAT64's discovery), the three
	// documentation ranges, the 6to4 relays' anycast, benchmarking,
	// reserved.
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	// IPv6: local-use NAT64 (a gateway's prefix there may be shorter
	// than /96, its IPv4 address then not in the last four bytes),
	// discard-only and the dummy prefix, the IETF's protocol assignments
	// (Teredo, benchmarking, ORCHID), documentation, SRv6's segment
	// identifiers, site-local.
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/63"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("5f00::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// reached are the addresses a connection to a reaches: a itself and,
// for an IPv6 address that carries an IPv4 one (NAT64, the standard
// prefix or the host's network's own, 6to4, the old IPv4-compatible and
// SIIT forms), that address, where a gateway takes it; a is judged as
// each.
func (p Policy) reached(a netip.Addr) []netip.Addr {
	a = a.Unmap()
	for _, e := range slices.Concat(embeddingIPv4, p.nat64) {
		if e.prefix.Contains(a) {
			b := a.As16()
			return []netip.Addr{a, netip.AddrFrom4([4]byte{b[e.at[0]], b[e.at[1]], b[e.at[2]], b[e.at[3]]})}
		}
	}
	return []netip.Addr{a}
}

// embedding is an IPv6 prefix that carries an IPv4 address, and where
// in the 16 bytes its four bytes sit.
type embedding struct {
	prefix netip.Prefix
	at     [4]int
}

var embeddingIPv4 = []embedding{
	{netip.MustParsePrefix("64:ff9b::/96"), rfc6052[96]},
	{netip.MustParsePrefix("2002::/16"), [4]int{2, 3, 4, 5}},
	{netip.MustParsePrefix("::/96"), rfc6052[96]},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), rfc6052[96]},
}

// rfc6052 is where a NAT64 prefix of each length puts the IPv4 address
// (RFC 6052: the byte after the first 64 bits stays zero).
var rfc6052 = map[int][4]int{
	32: {4, 5, 6, 7}, 40: {5, 6, 7, 9}, 48: {6, 7, 9, 10},
	56: {7, 9, 10, 11}, 64: {9, 10, 11, 12}, 96: {12, 13, 14, 15},
}

// ipv4Only are the addresses of ipv4only.arpa, a name with no IPv6
// address of its own: a DNS64 resolver answers them within the prefix
// its NAT64 gateway translates (RFC 7050).
var ipv4Only = []netip.Addr{netip.MustParseAddr("192.0.0.170"), netip.MustParseAddr("192.0.0.171")}

// nat64Prefixes are the NAT64 prefixes addrs, ipv4only.arpa's addresses
// as the host resolves them, reveal. An operator's NAT64 may use a
// prefix of its own, of global range, and translate an address there to
// one inside its network (a cloud's metadata service, the LAN): judged
// by its range alone, it passed as public.
func nat64Prefixes(addrs []netip.Addr) []embedding {
	var found []embedding
	for _, a := range addrs {
		if !a.Is6() || a.Is4In6() {
			continue
		}
		b := a.As16()
		for bits, at := range rfc6052 {
			if !slices.Contains(ipv4Only, netip.AddrFrom4([4]byte{b[at[0]], b[at[1]], b[at[2]], b[at[3]]})) {
				continue
			}
			if prefix, err := a.Prefix(bits); err == nil && !slices.ContainsFunc(found, func(e embedding) bool { return e.prefix == prefix }) {
				found = append(found, embedding{prefix, at})
			}
		}
	}
	return found
}

// Exact are the allow list's entries that name one host (a name or an
// address) with its port, as host:port, that the lists let through: the
// servers --with-ssh's agent signs a login to (a wildcard names none).
func (p Policy) Exact() []string {
	var exact []string
	for _, r := range p.Allow {
		if r.wildcard || r.port == 0 {
			continue
		}
		t := target{host: r.host, addr: r.addr, port: r.port}
		if p.allows(t) {
			exact = append(exact, net.JoinHostPort(cmp.Or(r.host, r.addr.String()), strconv.Itoa(r.port)))
		}
	}
	return exact
}

// neverAt says a at port is the API's own, reached only through the
// injecting path.
func (p Policy) neverAt(a netip.Addr, port int) bool {
	return slices.Contains(p.NeverAt, netip.AddrPortFrom(a.Unmap(), uint16(port)))
}
