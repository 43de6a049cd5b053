package proxy

import (
	"bufio"
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	neturl "net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claudebox/claudebox/internal/pipe"
)

// egress is the filtered network's only way out: HTTPS by CONNECT to a
// host:port, the tunnel passed through untouched (no TLS interception), and
// plain HTTP by absolute URL, each to what the policy allows.
type egress struct {
	// policy grows while the session runs (Proxy.Allow): read it through
	// current.
	policy   Policy
	policyMu sync.RWMutex
	blocked  tally
	// kernelSized counts the tunnels whose connection to the server keeps
	// the kernel's own sizing (kernelSizedTunnels).
	kernelSized atomic.Int32
	// resolve and dial are the host's resolver and dialer; tests put stubs
	// in their place, so that no test resolves a real name or dials any
	// address but loopback.
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	// hostProxy is the host's own proxy for a request (its HTTPS_PROXY,
	// HTTP_PROXY, NO_PROXY); roots, the CAs its TLS is checked against
	// (nil: the system's).
	hostProxy func(*http.Request) (*neturl.URL, error)
	roots     func() *x509.CertPool
	forward   *httputil.ReverseProxy
	log       func(map[string]any)
	// nat64 are the NAT64 prefixes of the host's networks this session,
	// looked up again (nat64Read: when last) at a name that resolves to
	// an IPv6 address once nat64Fresh has passed.
	nat64     []embedding
	nat64Read time.Time
	nat64Mu   sync.Mutex
}

// nat64Wait bounds the look-up of the host's NAT64 prefixes.
const nat64Wait = 2 * time.Second

// nat64Fresh is how long a look-up of the NAT64 prefixes stands: a
// laptop joins another network, a resolver that failed answers again.
var nat64Fresh = 30 * time.Second

// maxNAT64 bounds the prefixes a session keeps.
const maxNAT64 = 16

// hostNAT64 are the NAT64 prefixes of the host's network: those its
// resolver answers ipv4only.arpa within (RFC 7050), none where it
// answers none; and those of the networks it was on earlier in the
// session, where a global address carrying an internal one is no less
// unlikely a server.
func (e *egress) hostNAT64(ctx context.Context) []embedding {
	e.nat64Mu.Lock()
	defer e.nat64Mu.Unlock()
	if !e.nat64Read.IsZero() && time.Since(e.nat64Read) < nat64Fresh {
		return slices.Clip(e.nat64)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), nat64Wait)
	defer cancel()
	addrs, _ := e.resolve(ctx, "ipv4only.arpa")
	for _, p := range nat64Prefixes(addrs) {
		if !slices.Contains(e.nat64, p) && len(e.nat64) < maxNAT64 {
			e.nat64 = append(e.nat64, p)
		}
	}
	e.nat64Read = time.Now()
	return slices.Clip(e.nat64)
}

// answerWait bounds the wait for the header of a plain-HTTP answer, once
// the request is sent: a server that never answers (one the sandbox
// chose among those allowed, or its own on a listed port) held the
// sandbox's connection, one of maxConns, and the supervisor's socket to
// it for ever (TestEgressAnswerWait). Two minutes, as long as the proxy
// keeps an idle connection: a client gives up on a server silent that
// long. Only the header: a body may stream for an hour, as a tunnel's
// traffic may.
var answerWait = 2 * time.Minute

func newEgress(policy Policy, log func(map[string]any)) *egress {
	sized := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: boundUpstreamUnsent}
	bounded := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: boundUpstreamBuffers}
	e := &egress{
		policy: policy,
		resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if kernelSizing(ctx) {
				return sized.DialContext(ctx, network, addr)
			}
			return bounded.DialContext(ctx, network, addr)
		},
		hostProxy: http.ProxyFromEnvironment,
		log:       log,
	}
	e.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.URL.Host
			pr.Out.RequestURI = ""
		},
		Transport: &http.Transport{
			// Every connection is dialled through the check: a pooled one
			// was checked when it was made.
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
				t, err := parseTarget(addr, 80)
				if err != nil {
					return nil, &blocked{what: addr, why: err.Error()}
				}
				c, err := e.connect(ctx, t, "http")
				if err != nil {
					return nil, err
				}
				return &answerCounted{Conn: c, header: headerCount{answers: true}}, nil
			},
			// What a server the sandbox chose can make the supervisor
			// hold: answers' headers of 64 KiB and maxHeaderFields
			// fields, counted over a connection's first answer, so a
			// connection serves one request.
			MaxResponseHeaderBytes: 64 << 10,
			DisableKeepAlives:      true,
			ResponseHeaderTimeout:  answerWait,
		},
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			var b *blocked
			if errors.As(err, &b) {
				e.refuse(w, r, b)
				return
			}
			var timeout net.Error
			if errors.As(err, &timeout) && timeout.Timeout() && r.Context().Err() == nil {
				http.Error(w, fmt.Sprintf("claudebox: %s did not begin its answer within %v", r.URL.Host, answerWait), http.StatusGatewayTimeout)
				return
			}
			http.Error(w, "claudebox: "+err.Error(), http.StatusBadGateway)
		},
	}
	return e
}

// ResolveWith makes the filtered network's proxy resolve names by hosts
// alone, for tests that must not ask a real DNS: every address it gives
// is checked as a resolved one is.
func (p *Proxy) ResolveWith(hosts map[string][]netip.Addr) {
	if p.egress == nil {
		return
	}
	p.egress.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := hosts[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	// A table is for tests, which dial only loopback: even were the
	// address check broken, nothing leaves the machine.
	dial := p.egress.dial
	p.egress.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if ap, err := netip.ParseAddrPort(addr); err != nil || !ap.Addr().Unmap().IsLoopback() {
			return nil, fmt.Errorf("with a resolver table, only loopback is dialled, not %s", addr)
		}
		return dial(ctx, network, addr)
	}
}

// blocked is a request the policy refuses: what it asked for and why.
type blocked struct {
	what, why string
	// host is the name to allow, when the refusal is the list's; quiet,
	// when it is not one to report at the session's end.
	host  string
	quiet bool
	// phrase is the refusal in a few words, for the status line; what and
	// why when empty.
	phrase string
}

// ownTraffic says what host is, where it is one of the hosts the agents
// contact on their own, in the background, that the sandbox refuses by
// design: refused and logged, but not reported at the session's end as
// blocked traffic, which the user would take for something to allow.
// Measured with Claude Code 2.1.330: an interactive session asks for
// downloads.claude.ai at its start, its updater off or not; nothing the
// user sees needs it (the host's claude updates itself).
func ownTraffic(host string) (string, bool) {
	if host == "downloads.claude.ai" {
		return "Claude Code's own update check", true
	}
	return "", false
}

// denied is t refused by the deny entry d.
func denied(t target, d Rule) *blocked {
	source := cmp.Or(d.source, "deny-hosts")
	return &blocked{what: t.String(), why: "denied by " + source + " (" + d.String() + ")", phrase: t.String() + " is denied by " + source}
}

// checkAddress refuses a, one of the addresses t resolved to, when the
// deny list names it or it is internal and not listed.
func (p Policy) checkAddress(t target, a netip.Addr) *blocked {
	a = a.Unmap()
	if slices.ContainsFunc(p.reached(a), func(r netip.Addr) bool { return p.neverAt(r, t.port) }) {
		return &blocked{what: t.String(), why: "it resolves to " + a.String() + ", Claude's API, which is reached only through claudebox's proxy, with the session's own credential", phrase: t.String() + " (Claude's API goes through claudebox's proxy only)"}
	}
	if d, ok := p.denyingAddr(a, t.port); ok {
		return denied(t, d)
	}
	if !p.addressAllowed(t, a) {
		return &blocked{
			what: t.String(), why: "it resolves to " + a.String() + ", an address inside the host or its network; list that address to allow it",
			phrase: t.String() + " resolves to " + a.String() + ", inside the host's network",
		}
	}
	return nil
}

func (b *blocked) Error() string { return b.what + ": " + b.why }

// connect resolves t on the host, checks every address it resolves to, and
// dials one of those: the address checked is the address dialled, so a
// name cannot be re-resolved in between into the LAN. When the host's own
// proxy covers t (for scheme), it goes through that instead.
func (e *egress) connect(ctx context.Context, t target, scheme string) (net.Conn, error) {
	policy := e.current()
	policy.onLink = hostNetworks()
	if d, ok := policy.denyingEntry(t); ok {
		return nil, denied(t, d)
	}
	if !policy.allows(t) {
		rule := t.rule().String()
		b := &blocked{what: t.String(), why: "not in the sandbox's allowed hosts", host: rule, phrase: rule + " (claudebox --allow-host " + rule + ")"}
		if own, ok := ownTraffic(t.host); ok {
			b.why, b.quiet, b.phrase = own+", which the sandbox refuses by design", true, t.String()+" ("+own+", refused by design)"
		}
		if t.host != "" && slices.Contains(policy.Never, t.host) || t.host == "" && policy.neverAt(t.addr, t.port) {
			b = &blocked{what: t.String(), why: "Claude's API is reached only through claudebox's proxy, with the session's own credential", phrase: t.String() + " (Claude's API goes through claudebox's proxy only)"}
		}
		return nil, b
	}
	via, err := e.upstreamFor(t, scheme)
	if err != nil {
		return nil, fmt.Errorf("the host's proxy settings: %v", err)
	}
	if via != nil {
		return e.connectVia(ctx, t, via, policy)
	}
	addrs := []netip.Addr{t.addr}
	if t.host != "" {
		if addrs, err = e.resolve(ctx, t.host); err != nil || len(addrs) == 0 {
			return nil, fmt.Errorf("cannot resolve %s: %v", t.host, err)
		}
	}
	if slices.ContainsFunc(addrs, func(a netip.Addr) bool { return a.Is6() && !a.Is4In6() }) {
		policy.nat64 = e.hostNAT64(ctx)
	}
	for _, a := range addrs {
		if b := policy.checkAddress(t, a); b != nil {
			return nil, b
		}
	}
	for _, a := range addrs {
		var c net.Conn
		addr := net.JoinHostPort(a.Unmap().String(), strconv.Itoa(t.port))
		if c, err = e.dial(ctx, "tcp", addr); err == nil {
			e.log(map[string]any{"decision": "allow", "target": t.String(), "address": addr})
			return c, nil
		}
	}
	return nil, err
}

// serveHTTP handles a request for the outside: CONNECT or an absolute URL.
func (e *egress) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		if r.URL.Scheme != "http" {
			e.refuse(w, r, &blocked{what: r.URL.Scheme + "://" + r.URL.Host, why: "only http:// goes by absolute URL; https:// goes by CONNECT"})
			return
		}
		e.forward.ServeHTTP(w, r)
		return
	}
	t, err := parseTarget(r.Host, 0)
	if err != nil {
		e.refuse(w, r, &blocked{what: r.Host, why: err.Error()})
		return
	}
	ctx := r.Context()
	if e.kernelSized.Add(1) <= kernelSizedTunnels {
		defer e.kernelSized.Add(-1)
		ctx = context.WithValue(ctx, kernelSizingKey{}, true)
	} else {
		e.kernelSized.Add(-1)
	}
	upstream, err := e.connect(ctx, t, "https")
	var b *blocked
	switch {
	case errors.As(err, &b):
		e.refuse(w, r, b)
		return
	case err != nil:
		http.Error(w, "claudebox: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer upstream.Close()
	client, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer client.Close()
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	tunnel(client, rw.Reader, upstream)
}

// forwardPort joins c, a connection to a forwarded port inside, to target
// (the host's loopback), as a CONNECT to it would be; a refusal is
// logged, and closes c.
func (e *egress) forwardPort(c net.Conn, target string) {
	defer c.Close()
	t, err := parseTarget(target, 0)
	if err != nil {
		return
	}
	upstream, err := e.connect(context.Background(), t, "https")
	if b := (*blocked)(nil); errors.As(err, &b) {
		e.log(map[string]any{"decision": "refuse", "method": http.MethodConnect, "target": b.what, "status": http.StatusForbidden, "why": b.why})
		if b.host != "" && !b.quiet {
			e.blocked.add(b.host)
		}
	}
	if err != nil {
		return
	}
	defer upstream.Close()
	tunnel(c, bufio.NewReaderSize(c, 16), upstream)
}

// tunnel joins the client to the upstream; what the server had read ahead
// from the client goes first. The copies run between the kernel's own
// connections (the limitedConn around the client unwrapped; its caller
// closes it), so the kernel splices them without passing the bytes
// through the proxy's buffers. The proxy's Close ends both.
func tunnel(client net.Conn, read *bufio.Reader, upstream net.Conn) {
	if l, ok := client.(*limitedConn); ok {
		l.tunnelsTo(upstream)
		client = l.Conn
	}
	var src io.Reader = client
	if read.Buffered() > 0 {
		src = io.MultiReader(io.LimitReader(read, int64(read.Buffered())), client)
	}
	pipe.Join(client, src, upstream)
}

// refuse answers a blocked request with 403 and a body that says which
// host was refused and how to allow it, and logs it. Many tools show only
// the status line (curl, git: "CONNECT tunnel failed, response 403"), so
// its reason phrase says it in a few words too.
func (e *egress) refuse(w http.ResponseWriter, r *http.Request, b *blocked) {
	msg := "claudebox: blocked " + b.what + ": " + b.why + "\n"
	if b.host != "" {
		msg += "To allow it, run on the host, in another terminal: claudebox --allow-host " + b.host + " --live (add --save to keep it in ~/.config/claudebox/config.toml).\n"
	}
	// Counted before the answer, which the client may act on at once.
	e.log(map[string]any{"decision": "refuse", "method": r.Method, "target": b.what, "status": http.StatusForbidden, "why": b.why})
	if b.host != "" && !b.quiet {
		e.blocked.add(b.host)
	}
	phrase := cmp.Or(b.phrase, b.what+": "+b.why)
	if !answerWithReason(w, http.StatusForbidden, "blocked by claudebox: "+phrase, msg) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Claudebox-Proxy", "refused")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, msg)
	}
}

// maxReason bounds a reason phrase.
const maxReason = 200

// answerWithReason answers with status and a reason phrase of its own,
// which net/http does not write, on the connection taken over; the
// phrase holds printable ASCII only (a deny entry's file may be named
// with anything). It closes the connection, and says false when it could
// not take it over.
func answerWithReason(w http.ResponseWriter, status int, reason, body string) bool {
	c, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return false
	}
	defer c.Close()
	phrase := []byte(reason)
	for i, ch := range phrase {
		if ch < 0x20 || ch > 0x7e {
			phrase[i] = '?'
		}
	}
	if len(phrase) > maxReason {
		phrase = append(phrase[:maxReason-3], "..."...)
	}
	fmt.Fprintf(rw, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Claudebox-Proxy: refused\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, phrase, len(body), body)
	rw.Flush()
	return true
}

// answerCounted is a connection to a server the sandbox chose, the
// fields of whose answer's header are counted as the transport reads
// them, as a request's are: net/http keeps each as a map entry, and
// 60 KiB of fields of a few bytes, never ended, held near a MiB of the
// supervisor's memory a request (TestReplayReview16AnswerHeaderFields).
type answerCounted struct {
	net.Conn
	header headerCount
}

// errAnswerFields ends an answer with more than maxHeaderFields fields.
var errAnswerFields = errors.New("the server's answer has more than " + strconv.Itoa(maxHeaderFields) + " fields in its header")

func (c *answerCounted) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if !c.header.ended && !c.header.count(b[:n]) {
		return 0, errAnswerFields
	}
	return n, err
}
