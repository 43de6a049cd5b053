package proxy

import (
	"crypto/tls"
	"crypto/x509"
)

// TrustCAs adds the host's own CA bundles (a corporate CA that re-signs
// what leaves the network) to the system's, for the proxy's TLS: to the
// API, and to the host's proxy when it speaks HTTPS. It is called before
// the sandbox starts, with certificates read then: a file the sandbox
// could later write is never read again.
func (p *Proxy) TrustCAs(pems [][]byte) {
	if len(pems) == 0 {
		return
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for _, b := range pems {
		pool.AppendCertsFromPEM(b)
	}
	p.api.TLSClientConfig = &tls.Config{RootCAs: pool}
	if p.egress != nil {
		p.egress.roots = pool
	}
}
