package main

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
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
