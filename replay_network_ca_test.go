package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayNetworkCA: a corporate CA the host trusts (NODE_EXTRA_CA_CERTS
// here: Go itself would read SSL_CERT_FILE) passes in with its file, read-only, and the supervisor's proxy
// trusts it for the API's TLS. The upstream here is an HTTPS server on
// loopback whose certificate only that CA vouches for. The attack: rewrite
// the CA file from inside, to have tools (or the supervisor) trust a CA
// of the agent's. The proof, on the host side: the API call through the
// proxy reaches the upstream with the real key, and the file is unchanged.
// A file that holds a private key does not pass (TestCAs).
func TestReplayNetworkCA(t *testing.T) {
	h := newE2EHost(t)
	var gotKey string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Api-Key")
		io.WriteString(w, `{"data":[{"id":"claude-via-corporate-ca"}]}`)
	}))
	defer api.Close()
	caFile := filepath.Join(h.base, "corp", "ca.pem")
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw}))
	h.write(caFile, ca)
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + api.URL, "NODE_EXTRA_CA_CERTS=" + caFile}
	out := h.inside(proj, env, `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		check visible 'test "$NODE_EXTRA_CA_CERTS" = `+caFile+` && grep -q "BEGIN CERTIFICATE" "$NODE_EXTRA_CA_CERTS"'
		check read-only '! echo attacker > "$NODE_EXTRA_CA_CERTS" 2>/dev/null'
		check api 'curl --noproxy "*" -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" "$ANTHROPIC_BASE_URL/v1/models" | grep -q claude-via-corporate-ca'
	`)
	t.Log(out)
	if strings.Contains(out, "FAIL") || strings.Count(out, "ok ") != 3 {
		t.Errorf("inside:\n%s", out)
	}
	if gotKey != "sk-ant-real-key" {
		t.Errorf("the upstream got key %q", gotKey)
	}
	if b := h.run(h.base, nil, "cat", caFile); b != ca {
		t.Errorf("the CA file changed:\n%s", b)
	}
}

// TestReplayNetworkCAInProject: the host's SSL_CERT_FILE names a bundle in
// the project, which the host's tools trust, and so does the supervisor's
// proxy: Go reads SSL_CERT_FILE at its first TLS connection, after the
// sandbox started. The attack, from inside: rewrite the bundle with a
// certificate of the agent's (the one the TLS server below presents,
// standing for a man in the middle), then make the session's first API
// call. Found by an attack review of the proxy's pool built at its first
// connection: the server got the real key. The bundle is guarded, as what
// the host obeys is: the proof, on the host side, is that the server got
// no key and the bundle is unchanged.
func TestReplayNetworkCAInProject(t *testing.T) {
	h := newE2EHost(t)
	var gotKey string
	mitm := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Api-Key")
		io.WriteString(w, `{"data":[{"id":"claude-via-mitm"}]}`)
	}))
	defer mitm.Close()
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "x"), "x\n")
	caFile := filepath.Join(proj, "corp-ca.pem")
	corp := selfSignedPEM(t)
	h.write(caFile, corp)
	attacker := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: mitm.Certificate().Raw}))
	h.write(filepath.Join(h.base, "attacker.pem"), attacker)
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + mitm.URL, "SSL_CERT_FILE=" + caFile}
	out := h.inside(proj, env, `
		cat > "$SSL_CERT_FILE" <<'PEM'
`+attacker+`PEM
		curl --noproxy "*" -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" "$ANTHROPIC_BASE_URL/v1/models" || true
	`)
	t.Log(out)
	if gotKey != "" {
		t.Errorf("the supervisor trusted a CA the sandbox wrote after its start: the server got key %q", gotKey)
	}
	if b := h.run(h.base, nil, "cat", caFile); b != corp {
		t.Errorf("the bundle changed:\n%s", b)
	}
}

func selfSignedPEM(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "corp CA"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))) + "\n"
}

// TestReplayNetworkCertDirInProject: the same through SSL_CERT_DIR, Go's
// certificate directories, which the proxy reads at its first TLS
// connection (claudebox passes no CA of it inside): one in the project is
// guarded whole, so the sandbox cannot add a certificate of its own there.
func TestReplayNetworkCertDirInProject(t *testing.T) {
	h := newE2EHost(t)
	var gotKey string
	mitm := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Api-Key")
		io.WriteString(w, `{"data":[{"id":"claude-via-mitm"}]}`)
	}))
	defer mitm.Close()
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "certs", "README"), "x\n")
	attacker := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: mitm.Certificate().Raw}))
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + mitm.URL, "SSL_CERT_DIR=" + filepath.Join(proj, "certs")}
	out := h.inside(proj, env, `
		cat > certs/evil.pem <<'PEM'
`+attacker+`PEM
		curl --noproxy "*" -sS --max-time 20 -H "x-api-key: $ANTHROPIC_API_KEY" "$ANTHROPIC_BASE_URL/v1/models" || true
	`)
	t.Log(out)
	if gotKey != "" {
		t.Errorf("the supervisor trusted a CA the sandbox wrote after its start: the server got key %q", gotKey)
	}
	if _, err := os.Stat(filepath.Join(proj, "certs", "evil.pem")); err == nil {
		t.Error("the sandbox added a certificate to the host's SSL_CERT_DIR")
	}
}
