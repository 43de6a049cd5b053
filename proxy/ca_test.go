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
	p.TrustCAs([][]byte{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate().Raw})}, true)
	if resp, body := post(t, p.URL+"/v1/messages", map[string]string{"X-Api-Key": p.Phantom}); resp.StatusCode != 200 {
		t.Fatalf("through the proxy: %s %s", resp.Status, body)
	}
	if c := p.api.TLSClientConfig; c != nil && c.RootCAs != nil {
		t.Error("a call over plain http built the CA pool")
	}
}

// TestShellBuildsNoCAPoolAhead: a shell's session (ahead false), whose
// first API call may never come, does not build the CA pool beside its
// start, which costs a sandboxed true a fifth of its processor time; the
// API over https still gets the host's CAs at its first call.
func TestShellBuildsNoCAPoolAhead(t *testing.T) {
	p, err := startLoopback(&Credential{Kind: APIKey, value: "sk-ant-api03-REAL"}, "https://api.anthropic.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ca := httptest.NewTLSServer(http.NotFoundHandler())
	ca.Close()
	p.TrustCAs([][]byte{pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate().Raw})}, false)
	// Built ahead, the pool is there in tens of milliseconds.
	time.Sleep(300 * time.Millisecond)
	if c := p.api.TLSClientConfig; c != nil && c.RootCAs != nil {
		t.Fatal("a shell's session built the CA pool ahead")
	}
	if p.trust == nil {
		t.Fatal("the API over https will not trust the host's CAs")
	}
	p.trust()
	if c := p.api.TLSClientConfig; c == nil || c.RootCAs == nil {
		t.Error("the first call over https built no CA pool")
	}
}
