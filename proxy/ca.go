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
// could later write is never read again. The pool is built at the first
// TLS connection, not here: reading the system's roots and parsing each
// bundle takes milliseconds (25 ms where eleven variables named the
// system's bundle), which a launch need not wait for.
func (p *Proxy) TrustCAs(pems [][]byte) {
	if len(pems) == 0 {
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
	p.trust = sync.OnceFunc(func() { p.api.TLSClientConfig = &tls.Config{RootCAs: roots()} })
	if p.egress != nil {
		p.egress.roots = roots
	}
	if p.Cred != nil {
		p.Cred.roots = roots
	}
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
