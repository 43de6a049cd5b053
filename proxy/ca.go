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
// a login is refreshed at. It is called before the sandbox starts, with
// certificates read then: a file the sandbox could later write is never
// read again. It builds nothing: reading the system's roots and parsing
// each bundle takes 25-35 ms of processor time, which the launch should
// not share its processors with. They are built at the first call that
// needs them, or earlier by BuildTrustAhead.
func (p *Proxy) TrustCAs(pems [][]byte) {
	overTLS := p.apiOverTLS()
	if len(pems) == 0 {
		if overTLS {
			// What Go's TLS reads at its first handshake.
			p.ahead = func() { x509.SystemCertPool() }
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
	p.ahead = p.trust
}

// BuildTrustAhead builds what the API's first TLS handshake needs
// (TrustCAs), called beside the session so that an agent's first call
// does not wait for it; nothing where the API is not reached over TLS.
func (p *Proxy) BuildTrustAhead() {
	if p.ahead != nil {
		p.ahead()
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
