package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// refusedStatus sends CONNECT target, or GET of an absolute URL, and
// returns the answer's status line and body.
func refusedStatus(t *testing.T, px *Proxy, method, target string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	host, _, _ := strings.Cut(strings.TrimPrefix(target, "http://"), "/")
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\n\r\n", method, target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.Status, string(b)
}

// The refusal's reason reaches tools that show only the status line: the
// reason phrase names the host and what allows it, or what denies it, in
// printable ASCII.
func TestRefusalReasonPhrase(t *testing.T) {
	deny, _ := ParseRule("evil.example")
	policy := mustPolicy(t, []string{"*.example"}, nil)
	policy.Deny = []Rule{deny.From("deny-hosts in /home/u/.config/claudebox/config.toml:3\x1b[2J\r\nX: y")}
	px := startEgress(t, policy, &stubNet{names: map[string][]netip.Addr{"lan.example": {netip.MustParseAddr("10.0.0.1")}}}, io.Discard)
	for _, c := range []struct{ method, target, status string }{
		{"CONNECT", "unlisted.test:443", "403 blocked by claudebox: unlisted.test (claudebox --allow-host unlisted.test)"},
		{"CONNECT", "unlisted.test:8443", "403 blocked by claudebox: unlisted.test:8443 (claudebox --allow-host unlisted.test:8443)"},
		{"GET", "http://unlisted.test/x", "403 blocked by claudebox: unlisted.test (claudebox --allow-host unlisted.test)"},
		{"CONNECT", "evil.example:443", "403 blocked by claudebox: evil.example:443 is denied by deny-hosts in /home/u/.config/claudebox/config.toml:3?[2J??X: y"},
		{"CONNECT", "lan.example:443", "403 blocked by claudebox: lan.example:443 resolves to 10.0.0.1, inside the host's network"},
	} {
		status, body := refusedStatus(t, px, c.method, c.target)
		if status != c.status {
			t.Errorf("%s %s: status line %q, want %q", c.method, c.target, status, c.status)
		}
		if !strings.Contains(body, "claudebox: blocked") {
			t.Errorf("%s %s: body %q", c.method, c.target, body)
		}
	}
}

// A host both allowed and denied is refused as denied: the refusal names
// the entry and where it is written, never advises allowing it, and the
// session's end does not list it among what was blocked; a host denied by
// address too.
func TestDeniedNamesItsLine(t *testing.T) {
	deny, _ := ParseRule("evil.example")
	denyAddr, _ := ParseRule("93.184.215.14")
	policy := mustPolicy(t, []string{"*.example"}, nil)
	policy.Deny = []Rule{deny.From("deny-hosts in /c/config.toml:7"), denyAddr.From("deny-hosts in /c/config.toml:8")}
	stub := &stubNet{names: map[string][]netip.Addr{"other.example": {netip.MustParseAddr("93.184.215.14")}}}
	px := startEgress(t, policy, stub, io.Discard)
	for target, want := range map[string]string{
		"evil.example:443":  "denied by deny-hosts in /c/config.toml:7 (evil.example)",
		"EVIL.example.:443": "denied by deny-hosts in /c/config.toml:7 (evil.example)",
		"other.example:443": "denied by deny-hosts in /c/config.toml:8 (93.184.215.14)",
	} {
		status, body, _ := connect(t, px, target)
		if status != http.StatusForbidden || !strings.Contains(body, want) || strings.Contains(body, "--allow-host") {
			t.Errorf("CONNECT %s: %d %q, want 403 saying %q and no advice to allow it", target, status, body, want)
		}
	}
	if _, err := px.Allow("evil.example"); err == nil || !strings.Contains(err.Error(), "/c/config.toml:7") {
		t.Errorf("Allow(evil.example): %v, want it refused naming the line", err)
	}
	if hosts, others := px.Blocked(); len(hosts) != 0 || others != 0 {
		t.Errorf("Blocked() = %v, %d: a denied host is reported as one to allow", hosts, others)
	}
	if d := stub.dials(); len(d) > 0 {
		t.Errorf("dialled %v", d)
	}
}

// Claude Code's own update check, which the sandbox refuses by design
// (measured with 2.1.330: an interactive session asks for
// downloads.claude.ai at its start, updater off or not), is refused and
// logged (the body still says how to allow it, for an agent that asks),
// but not reported at the session's end as blocked traffic.
func TestOwnTrafficNotReported(t *testing.T) {
	var log strings.Builder
	px := startEgress(t, mustPolicy(t, nil, nil), &stubNet{}, &log)
	status, body := refusedStatus(t, px, "CONNECT", "downloads.claude.ai:443")
	if status != "403 blocked by claudebox: downloads.claude.ai:443 (Claude Code's own update check, refused by design)" || !strings.Contains(body, "claudebox: blocked") {
		t.Errorf("CONNECT downloads.claude.ai:443: %q %q", status, body)
	}
	if hosts, _ := px.Blocked(); len(hosts) != 0 {
		t.Errorf("Blocked() = %v: Claude Code's own update check is reported to the user", hosts)
	}
	if !strings.Contains(log.String(), `"target":"downloads.claude.ai:443"`) {
		t.Errorf("the refusal is not logged:\n%s", log.String())
	}
}

// A credential header spelled with underscores, which a server reading
// headers through CGI's names takes for the same one, never goes on
// beside the real credential: the agent cannot bring its own key.
func TestCredentialHeaderSpellings(t *testing.T) {
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(http.Header) bool { return true }, rec, nil)
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, up.URL, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, _ := post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom, "X_Api_Key": "sk-ant-attacker", "Authorization_": "x", "authorization": "Bearer sk-ant-attacker"})
	if resp.StatusCode != 200 || len(rec.headers) != 1 {
		t.Fatalf("%s, %d requests upstream", resp.Status, len(rec.headers))
	}
	for name, v := range rec.headers[0] {
		if strings.Contains(strings.Join(v, ","), "attacker") {
			t.Errorf("the upstream got %s: %q beside the real key", name, v)
		}
	}
}

// Only the query parameters the agents send go on: Google's APIs take a
// key or an access token in the query too (key=, access_token=), where
// the agent's own would send the user's prompts to its project.
func TestQueryKeptToKnown(t *testing.T) {
	rec := &upstreamRecorder{}
	up := startUpstream(t, func(http.Header) bool { return true }, rec, nil)
	for _, c := range []struct {
		cred       *Credential
		header     string
		path, want string
	}{
		{&Credential{Kind: GeminiKey, value: "AIza-real"}, "X-Goog-Api-Key", "/v1beta/models/m:streamGenerateContent?alt=sse&key=AIza-attacker&access_token=ya29.attacker&alt;key=x", "/v1beta/models/m:streamGenerateContent?alt=sse"},
		{&Credential{Kind: APIKey, value: "sk-ant-api03-real"}, "X-Api-Key", "/v1/messages?beta=true&KEY=x&%62eta=y", "/v1/messages?beta=true"},
	} {
		p, err := startLoopback(c.cred, up.URL, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		post(t, p.URL+c.path, map[string]string{c.header: p.Phantom})
		rec.mu.Lock()
		got := rec.paths[len(rec.paths)-1]
		rec.mu.Unlock()
		if got != c.want {
			t.Errorf("POST %s reached the API as %s, want %s", c.path, got, c.want)
		}
	}
}

// TestExact: the allow list's servers --with-ssh's agent signs a login
// to are its entries naming one host with its port, that the deny list
// leaves allowed: not a wildcard's, not an entry without a port.
func TestExact(t *testing.T) {
	var p Policy
	for _, s := range []string{"github.com:22", "*.github.com:22", "example.com", "127.0.0.1:2222", "[::1]:22", "denied.example.com:22"} {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		p.Allow = append(p.Allow, r)
	}
	denied, _ := ParseRule("denied.example.com")
	p.Deny = []Rule{denied}
	if got, want := p.Exact(), []string{"github.com:22", "127.0.0.1:2222", "[::1]:22"}; !slices.Equal(got, want) {
		t.Errorf("Exact() = %q, want %q", got, want)
	}
}
