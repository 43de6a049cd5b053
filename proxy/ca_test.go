package proxy

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestPlainAPIBuildsNoCAPool: an API reached over plain http (a local
// gateway, the tests' fake API) makes no TLS connection, so its first call
// does not wait while the system's roots and the host's bundles are read
// and parsed (25-35 ms measured, in the first call Claude makes).
func TestPlainAPIBuildsNoCAPool(t *testing.T) {
	const real = "sk-ant-api03-REAL"
	up := startUpstream(t, func(h http.Header) bool { return h.Get("X-Api-Key") == real }, nil, nil)
	p, err := startLoopback(&Credential{Kind: APIKey, value: real}, up.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ca := httptest.NewTLSServer(http.NotFoundHandler())
	ca.Close()
	p.TrustCAs([][]byte{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate().Raw})})
	p.BuildTrustAhead()
	if resp, body := post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom}); resp.StatusCode != 200 {
		t.Fatalf("through the proxy: %s %s", resp.Status, body)
	}
	if c := p.api.TLSClientConfig; c != nil && c.RootCAs != nil {
		t.Error("a call over plain http built the CA pool")
	}
}

// TestTrustBuiltOnlyAhead: TrustCAs, called while the launch needs the
// processors, builds no CA pool (25-35 ms of processor time, a sandboxed
// true's fifth); BuildTrustAhead does, beside the session, and without it
// the API over https still gets the host's CAs at its first call.
func TestTrustBuiltOnlyAhead(t *testing.T) {
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, "https://api.anthropic.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ca := httptest.NewTLSServer(http.NotFoundHandler())
	ca.Close()
	built := make(chan struct{})
	p.TrustCAs([][]byte{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate().Raw})})
	trust := p.trust
	if trust == nil {
		t.Fatal("the API over https will not trust the host's CAs")
	}
	p.trust = func() { trust(); close(built) }
	p.ahead = p.trust
	// Built by TrustCAs, the pool is there in tens of milliseconds.
	time.Sleep(300 * time.Millisecond)
	if c := p.api.TLSClientConfig; c != nil && c.RootCAs != nil {
		t.Fatal("TrustCAs built the CA pool while the launch runs")
	}
	p.BuildTrustAhead()
	select {
	case <-built:
	case <-time.After(30 * time.Second):
		t.Fatal("BuildTrustAhead built no CA pool")
	}
	if c := p.api.TLSClientConfig; c == nil || c.RootCAs == nil {
		t.Error("BuildTrustAhead built no CA pool for the API")
	}
}
