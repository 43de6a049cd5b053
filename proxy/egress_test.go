package proxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestParseRule(t *testing.T) {
	for _, ok := range []string{"github.com", "GitHub.com.", "*.githubusercontent.com", "example.com:8443", "127.0.0.1:8080", "[::1]:8080", "::1", "localhost:5432", "169.254.169.254"} {
		if _, err := ParseRule(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "*", "*.", "a..b", "exa mple.com", "exa%00mple.com", "a\x00b.com", "user@github.com", "*.10.0.0", "*.127.0.0.1", "192.168.*", "github.com:", "github.com:0", "github.com:99999", "github.com:08", "[::1", "[::1]x", "*.*.example.com", "a/b"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestParseTarget: what a CONNECT names is normalised (case, one trailing
// dot) or refused (NUL, %, spaces, user@, wildcards, zones, no port).
func TestParseTarget(t *testing.T) {
	for in, want := range map[string]string{
		"GitHub.COM.:443": "github.com:443", "github.com:443": "github.com:443",
		"[::ffff:127.0.0.1]:80": "127.0.0.1:80", "[::1]:8080": "[::1]:8080",
	} {
		got, err := parseTarget(in, 0)
		if err != nil || got.String() != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{
		"github.com", "github.com.:", "git\x00hub.com:443", "git%00hub.com:443", "git hub.com:443", "user@github.com:443",
		"*.github.com:443", "github.com..:443", "[fe80::1%eth0]:443", "github.com:443:443", "github.com:-1",
	} {
		if got, err := parseTarget(bad, 0); err == nil {
			t.Errorf("%q: accepted as %v", bad, got)
		}
	}
}

func mustPolicy(t *testing.T, allow, deny []string) Policy {
	t.Helper()
	var p Policy
	for _, s := range allow {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(s, err)
		}
		p.Allow = append(p.Allow, r)
	}
	for _, s := range deny {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(s, err)
		}
		p.Deny = append(p.Deny, r)
	}
	return p
}

func TestPolicyMatches(t *testing.T) {
	p := mustPolicy(t, []string{"github.com", "*.example.com", "db.internal:5432", "*.npmjs.org", "10.1.2.3:8080"}, []string{"evil.example.com"})
	for hostport, want := range map[string]bool{
		"github.com:443": true, "github.com:80": true, "github.com:22": false, "api.github.com:443": false,
		"a.example.com:443": true, "a.b.example.com:80": true, "example.com:443": false, "evil.example.com:443": false,
		"db.internal:5432": true, "db.internal:443": false, "10.1.2.3:8080": true, "10.1.2.3:443": false,
		"registry.npmjs.org:443": true, "npmjs.org.evil.com:443": false,
	} {
		tg, err := parseTarget(hostport, 0)
		if err != nil {
			t.Fatal(hostport, err)
		}
		if got := p.allows(tg); got != want {
			t.Errorf("%s: allowed %v, want %v", hostport, got, want)
		}
	}
}

// stubNet is the host's network as a test sees it: names resolve through
// a table, and the only address dialled for real is loopback.
type stubNet struct {
	names  map[string][]netip.Addr
	mu     sync.Mutex
	dialed []string
}

func (s *stubNet) install(e *egress) {
	e.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if a, ok := s.names[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host (stub)")
	}
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		s.mu.Lock()
		s.dialed = append(s.dialed, addr)
		s.mu.Unlock()
		if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().IsLoopback() {
			return nil, fmt.Errorf("test refuses to dial %s", addr)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
}

func (s *stubNet) dials() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dialed...)
}

// startEgress runs a proxy with the filtered network's way out, on
// loopback, with stub for the host's resolver and dialer.
func startEgress(t *testing.T, p Policy, stub *stubNet, log io.Writer) *Proxy {
	t.Helper()
	ln, u, err := ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	px, err := Start(ln, u, &Credential{Kind: APIKey, value: "k"}, "https://api.anthropic.com", &p, log)
	if err != nil {
		t.Fatal(err)
	}
	stub.install(px.egress)
	t.Cleanup(func() { px.Close() })
	return px
}

// connect sends CONNECT target through the proxy and returns the status
// and, when it is 200, the tunnel.
func connect(t *testing.T, px *Proxy, target string) (int, string, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return 0, err.Error(), nil
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		return resp.StatusCode, string(b), nil
	}
	return resp.StatusCode, "", c
}

// echoServer answers each line with the same line, on 127.0.0.1.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// TestEgressConnect: a loopback server listed by address is reached through
// CONNECT; an unlisted host, a listed name that resolves to loopback or to
// the cloud metadata address, a denied host and the API's own host are
// refused with a 403 that names the host and a log line, and none of them
// is dialled (the stub resolver plays the DNS).
func TestEgressConnect(t *testing.T) {
	echo := echoServer(t)
	port := echo[strings.LastIndex(echo, ":")+1:]
	stub := &stubNet{names: map[string][]netip.Addr{
		"rebind.example":   {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("127.0.0.1")},
		"metadata.example": {netip.MustParseAddr("169.254.169.254")},
		"lan.example":      {netip.MustParseAddr("192.168.1.10")},
		"cgnat.example":    {netip.MustParseAddr("100.64.0.1")},
		"v6lan.example":    {netip.MustParseAddr("fd00:ec2::254")},
		"denied.example":   {netip.MustParseAddr("93.184.215.14")},
		"localhost":        {netip.MustParseAddr("127.0.0.1")},
	}}
	var log bytes.Buffer
	px := startEgress(t, mustPolicy(t,
		[]string{echo, "rebind.example", "metadata.example:80", "lan.example", "cgnat.example", "v6lan.example", "*.example", "api.anthropic.com", "localhost:" + port},
		[]string{"denied.example"}), stub, &log)

	status, _, c := connect(t, px, echo)
	if status != http.StatusOK {
		t.Fatalf("listed loopback server: status %d", status)
	}
	fmt.Fprintln(c, "ping")
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "ping\n" {
		t.Fatalf("tunnel echoed %q", line)
	}
	c.Close()
	if status, _, c := connect(t, px, "LocalHost.:"+port); status != http.StatusOK {
		t.Fatalf("localhost:%s listed: status %d", port, status)
	} else {
		c.Close()
	}
	before := len(stub.dials())

	for target, want := range map[string]string{
		"unlisted.test:443":     "--allow-host unlisted.test",
		"rebind.example:443":    "resolves to 127.0.0.1",
		"metadata.example:80":   "resolves to 169.254.169.254",
		"lan.example:443":       "resolves to 192.168.1.10",
		"cgnat.example:443":     "resolves to 100.64.0.1",
		"v6lan.example:443":     "resolves to fd00:ec2::254",
		"denied.example:443":    "denied by deny-hosts (denied.example)",
		"api.anthropic.com:443": "only through claudebox's proxy",
		"127.0.0.1:22":          "--allow-host 127.0.0.1",
		"169.254.169.254:80":    "--allow-host 169.254.169.254",
		"localhost:22":          "--allow-host localhost",
		"*.example:443":         "not a host name",
		"github.com":            "no port",
	} {
		status, body, _ := connect(t, px, target)
		if status != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("CONNECT %s: %d %q, want 403 saying %q", target, status, body, want)
		}
	}
	// Go's server refuses these before the proxy sees them.
	for _, target := range []string{"user@github.com:443", "github.com%00.evil:443", "git hub.com:443"} {
		if status, _, _ := connect(t, px, target); status != http.StatusBadRequest {
			t.Errorf("CONNECT %s: %d, want 400", target, status)
		}
	}
	if d := stub.dials()[before:]; len(d) > 0 {
		t.Errorf("refused targets were dialled: %v", d)
	}
	if n := strings.Count(log.String(), `"status":403`); n != 13 {
		t.Errorf("%d log lines for 13 refusals:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), `"target":"unlisted.test:443"`) {
		t.Errorf("log does not name the host:\n%s", log.String())
	}
}

// TestEgressPlainHTTP: an absolute URL to a listed loopback server passes,
// an unlisted one gets the 403, https:// by absolute URL is refused, and a
// request for the relay's own address is the API's.
func TestEgressPlainHTTP(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) })}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	stub := &stubNet{}
	px := startEgress(t, mustPolicy(t, []string{ln.Addr().String()}, nil), stub, io.Discard)
	pu, _ := url.Parse(px.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	get := func(u string) (int, string) {
		resp, err := client.Get(u)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if s, b := get("http://" + ln.Addr().String() + "/x"); s != 200 || b != "hello /x" {
		t.Errorf("listed: %d %q", s, b)
	}
	if s, b := get("http://unlisted.test/x"); s != 403 || !strings.Contains(b, "--allow-host unlisted.test") {
		t.Errorf("unlisted: %d %q", s, b)
	}
	if s, b := get("http://127.0.0.1:1/x"); s != 403 {
		t.Errorf("unlisted port: %d %q", s, b)
	}
	// A client that proxies even its API calls: the relay's own address.
	if s, b := get(px.URL + "/v1/models"); s != http.StatusUnauthorized || !strings.Contains(b, "credential") {
		t.Errorf("API call by absolute URL: %d %q", s, b)
	}
	for _, d := range stub.dials() {
		if d != ln.Addr().String() {
			t.Errorf("dialled %s", d)
		}
	}
}

// TestSharedProxyIsNoWayOut: without the filtered network, the proxy
// refuses CONNECT.
func TestSharedProxyIsNoWayOut(t *testing.T) {
	px, err := startLoopback(&Credential{Kind: APIKey, value: "k"}, "https://api.anthropic.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	if status, _, _ := connect(t, px, echoServer(t)); status != http.StatusForbidden {
		t.Fatalf("CONNECT through the shared network's proxy: %d", status)
	}
}

// An address on one of the host's own networks is internal whatever its
// range (the host's public address, its global IPv6 prefix), unless the
// allow list names it exactly.
func TestOnLinkInternal(t *testing.T) {
	must := func(s string) Rule {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	p := Policy{Allow: []Rule{must("93.184.215.9:5432")}, onLink: []netip.Prefix{netip.MustParsePrefix("93.184.215.0/24"), netip.MustParsePrefix("2606:2800:21f::/64")}}
	named := target{host: "rebind.test", port: 5432}
	for a, want := range map[string]bool{
		"93.184.215.7":          false,
		"93.184.215.9":          true,
		"2606:2800:21f::42":     false,
		"::ffff:93.184.215.7":   false,
		"8.8.8.8":               true,
		"2606:2800:220:1::1946": true,
	} {
		if got := p.addressAllowed(named, netip.MustParseAddr(a)); got != want {
			t.Errorf("%s: allowed %v, want %v", a, got, want)
		}
	}
	if nets := hostNetworks(); slices.ContainsFunc(nets, func(n netip.Prefix) bool { return !n.IsValid() || n.Addr() != n.Masked().Addr() }) {
		t.Errorf("the host's networks are not masked prefixes: %v", nets)
	}
}

// TestOnLinkCarried: an IPv6 address that carries an IPv4 one (NAT64,
// 6to4, the IPv4-compatible form) reaches that address through the
// gateway, and is judged as it: one that carries an address on a
// network of the host's own (its public address, 93.184.215.7 here)
// reaches the host's services as that address does, and is refused as
// it is; a public one beside it passes. And a deny entry naming an
// address refuses the forms that carry it.
func TestOnLinkCarried(t *testing.T) {
	must := func(s string) Rule {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	p := Policy{Deny: []Rule{must("8.8.4.4")}, onLink: []netip.Prefix{netip.MustParsePrefix("93.184.215.0/24")}}
	named := target{host: "rebind.test", port: 443}
	for a, want := range map[string]bool{
		"93.184.215.7":         false,
		"64:ff9b::5db8:d707":   false,
		"2002:5db8:d707::1":    false,
		"::5db8:d707":          false,
		"::ffff:0:5db8:d707":   false,
		"64:ff9b::808:808":     true,
		"2002:808:808::1":      true,
		"64:ff9b::808:404":     false,
		"2002:808:404::1":      false,
		"2606:4700:4700::1111": true,
	} {
		if got := p.addressAllowed(named, netip.MustParseAddr(a)); got != want {
			t.Errorf("%s: allowed %v, want %v", a, got, want)
		}
	}
}

// TestEgressNeverBaseURLSpelling: the user's base URL names its host with
// a trailing dot and in capitals; the sandbox asks for the host as a
// target spells it (lower case, no dot), under a wildcard the user
// allows. The API's host is still reached only through the injecting
// path, and nothing is dialled.
func TestEgressNeverBaseURLSpelling(t *testing.T) {
	stub := &stubNet{names: map[string][]netip.Addr{"gw.corp.example": {netip.MustParseAddr("93.184.215.14")}}}
	ln, u, err := ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t, []string{"*.corp.example"}, nil)
	px, err := Start(ln, u, &Credential{Kind: APIKey, value: "k"}, "https://GW.Corp.Example./", &p, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stub.install(px.egress)
	defer px.Close()
	for _, target := range []string{"gw.corp.example:443", "GW.corp.example.:443"} {
		if status, body, _ := connect(t, px, target); status != http.StatusForbidden || !strings.Contains(body, "only through claudebox's proxy") {
			t.Errorf("CONNECT %s: %d %q, want 403: the API's host goes through the injecting path only", target, status, body)
		}
	}
	if d := stub.dials(); len(d) != 0 {
		t.Errorf("dialled %v", d)
	}
}

// TestEgressNeverBaseURLAddress: the user's base URL names a local
// gateway by its address; the sandbox asks for it by another spelling the
// user allows (localhost:4000, 127.0.0.1:4000, [::ffff:127.0.0.1]:4000).
// Each is refused at the address, and nothing is dialled; the same
// address at another port is not the API's.
func TestEgressNeverBaseURLAddress(t *testing.T) {
	stub := &stubNet{names: map[string][]netip.Addr{"localhost": {netip.MustParseAddr("127.0.0.1")}}}
	ln, u, err := ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p := mustPolicy(t, []string{"localhost:4000", "127.0.0.1:4000", "::ffff:127.0.0.1", "127.0.0.1:4001"}, nil)
	px, err := Start(ln, u, &Credential{Kind: APIKey, value: "k"}, "http://127.0.0.1:4000/", &p, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	stub.install(px.egress)
	defer px.Close()
	for _, target := range []string{"localhost:4000", "127.0.0.1:4000", "[::ffff:127.0.0.1]:4000"} {
		if status, body, _ := connect(t, px, target); status != http.StatusForbidden || !strings.Contains(body, "only through claudebox's proxy") {
			t.Errorf("CONNECT %s: %d %q, want 403: the API's address goes through the injecting path only", target, status, body)
		}
	}
	if d := stub.dials(); len(d) != 0 {
		t.Errorf("dialled %v", d)
	}
	connect(t, px, "127.0.0.1:4001")
	if d := stub.dials(); !slices.Equal(d, []string{"127.0.0.1:4001"}) {
		t.Errorf("dialled %v, want 127.0.0.1:4001 alone", d)
	}
}

// TestEgressAllowLoggedPastBound: the log's lines were a bound the sandbox
// spent: 4,000 refusals first, and the connection it then made to a host
// the allow list names was not logged. Past the bound each target's first
// allowed connection still is.
func TestEgressAllowLoggedPastBound(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	log := &lockedLog{}
	px := startEgress(t, mustPolicy(t, []string{fmt.Sprintf("127.0.0.1:%d", port)}, nil), &stubNet{}, log)
	for i := range maxLoggedLines {
		px.logLine(map[string]any{"decision": "refuse", "target": fmt.Sprintf("pad%d.example:443", i)})
	}
	for range 2 {
		connect(t, px, fmt.Sprintf("127.0.0.1:%d", port))
	}
	got := log.String()
	if n := strings.Count(got, fmt.Sprintf(`"target":"127.0.0.1:%d"`, port)); n != 1 {
		t.Errorf("the connection allowed past the log's bound is logged %d times, want once:\n%s", n, got[max(0, len(got)-600):])
	}
}

// lockedLog is a log the proxy's goroutines write and the test reads.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
