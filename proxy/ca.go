package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"sync"
)

// TrustCAs adds the host's own CA bundles (a corporate CA that re-signs
// what leaves the network) to the system's, for the proxy's TLS: to the
// API, to the host's proxy when it speaks HTTPS, and to the token endpoint
// a login is refreshed at. It is called before
// the sandbox starts, with certificates read then: a file the sandbox
// could later write is never read again. Reading the system's roots and
// parsing each bundle takes 25-35 ms, which neither the launch nor
// Claude's first call should wait for: the pool is built beside the
// sandbox's start when the API is reached over TLS and ahead says an
// agent's first call comes at once, and never for an API over plain http
// (then only a refresh or the host's HTTPS proxy build it, when they first
// need it). A shell's session, whose first call may never come, builds it
// at that call: its 25-35 ms of processor are a sandboxed true's fifth.
func (p *Proxy) TrustCAs(pems [][]byte, ahead bool) {
	overTLS := p.apiOverTLS()
	if len(pems) == 0 {
		if overTLS && ahead {
			// What Go's TLS reads at its first handshake, read now.
			go x509.SystemCertPool()
		}
		return
	}
	roots := sync.OnceValue(func() *x509.CertPool {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		for _, b := range pems {
			pool.AppendCertsFromPEM(b)
		}
		return pool
	})
	if p.egress != nil {
		p.egress.roots = roots
	}
	if p.Cred != nil {
		p.Cred.roots = roots
	}
	if !overTLS {
		return
	}
	p.trust = sync.OnceFunc(func() { p.api.TLSClientConfig = &tls.Config{RootCAs: roots()} })
	if ahead {
		go p.trust()
	}
}

// apiOverTLS says whether the proxy's calls to the API use TLS: the API
// over https, or the host's proxy on the way over https.
func (p *Proxy) apiOverTLS() bool {
	if p.upstream.Scheme == "https" {
		return true
	}
	via, err := p.api.Proxy(&http.Request{URL: p.upstream})
	return err != nil || (via != nil && via.Scheme == "https")
}

// apiTransport is the transport to the API, which trusts the host's CAs
// from its first request on.
type apiTransport struct{ p *Proxy }

func (t apiTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.p.trust != nil {
		t.p.trust()
	}
	return t.p.api.RoundTrip(r)
}
