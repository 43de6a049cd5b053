package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"strings"
	"time"
)

// The host's own proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, read by the
// supervisor as Go reads them) carries the filtered network's way out as
// it carries the API: on a proxy-only network there is no other. Through
// it, a target goes by name: the upstream resolves it, and the network's
// own rules apply there. What claudebox still checks: the allow and deny
// lists by name, the API's hosts never, an address target as before, and
// a name the host can resolve is refused when any of its addresses is
// internal. A name the host cannot resolve (a proxy-only network often has
// no outside DNS) goes to the upstream by name: what it reaches then is
// what the host's own tools reach through that proxy.

// upstreamFor is the host's proxy for a request to t by scheme ("https"
// for CONNECT, "http" for an absolute URL), or nil to go direct. Loopback
// targets always go direct.
func (e *egress) upstreamFor(t target, scheme string) (*neturl.URL, error) {
	u := &neturl.URL{Scheme: scheme, Host: t.String()}
	return e.hostProxy(&http.Request{URL: u, Host: u.Host})
}

// connectVia reaches t through the host's proxy via, by CONNECT.
func (e *egress) connectVia(ctx context.Context, t target, via *neturl.URL, policy Policy) (net.Conn, error) {
	var addrs []netip.Addr
	if t.host != "" {
		if resolved, err := e.resolve(ctx, t.host); err == nil {
			addrs = resolved
		}
	} else {
		addrs = []netip.Addr{t.addr}
	}
	for _, a := range addrs {
		if b := policy.checkAddress(t, a); b != nil {
			return nil, b
		}
	}
	port := via.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[via.Scheme]
	}
	c, err := e.dial(ctx, "tcp", net.JoinHostPort(via.Hostname(), port))
	if err != nil {
		return nil, fmt.Errorf("the host's proxy %s: %v", proxyName(via), err)
	}
	// Its answer to the CONNECT is waited for as a server's is: a proxy
	// that never answers (for a target it cannot reach) held the
	// sandbox's connection for ever.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(answerWait)
	}
	c.SetDeadline(deadline)
	if via.Scheme == "https" {
		var roots *x509.CertPool
		if e.roots != nil {
			roots = e.roots()
		}
		tc := tls.Client(c, &tls.Config{ServerName: via.Hostname(), RootCAs: roots})
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("the host's proxy %s: %v", proxyName(via), err)
		}
		c = tc
	}
	head := "CONNECT " + t.String() + " HTTP/1.1\r\nHost: " + t.String() + "\r\n"
	if via.User != nil {
		pass, _ := via.User.Password()
		head += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(via.User.Username()+":"+pass)) + "\r\n"
	}
	read := bufio.NewReader(c)
	var resp *http.Response
	if _, err = c.Write([]byte(head + "\r\n")); err == nil {
		resp, err = http.ReadResponse(read, &http.Request{Method: http.MethodConnect})
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("the host's proxy %s: %v", proxyName(via), err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("the host's proxy %s answered %s for %s", proxyName(via), strings.TrimSpace(resp.Status), t)
	}
	c.SetDeadline(time.Time{})
	e.log(map[string]any{"decision": "allow", "target": t.String(), "via": proxyName(via)})
	return &readAheadConn{Conn: c, read: read}, nil
}

// proxyName names the host's proxy in errors and the log, which the
// sandbox reads: its scheme and host:port alone. A variable Go misreads
// (a password with a space in it, not escaped) leaves the password in the
// URL's path, where Redacted shows it.
func proxyName(via *neturl.URL) string {
	return via.Scheme + "://" + via.Host
}

// readAheadConn is a connection with what was read ahead of it first.
type readAheadConn struct {
	net.Conn
	read *bufio.Reader
}

func (c *readAheadConn) Read(p []byte) (int, error) { return c.read.Read(p) }

// CloseWrite passes a half close on, as a tunnel ends one direction.
func (c *readAheadConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Close()
}
