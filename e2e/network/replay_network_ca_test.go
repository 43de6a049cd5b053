package network

import (
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
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
	h := harness.NewHost(t)
	var gotKey string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey = r.Header.Get("X-Api-Key")
		io.WriteString(w, `{"data":[{"id":"claude-via-corporate-ca"}]}`)
	}))
	defer api.Close()
	caFile := filepath.Join(h.Base, "corp", "ca.pem")
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw}))
	h.Write(caFile, ca)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + api.URL, "NODE_EXTRA_CA_CERTS=" + caFile}
	out := h.Inside(proj, env, `
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
	if b := h.Run(h.Base, nil, "cat", caFile); b != ca {
		t.Errorf("the CA file changed:\n%s", b)
	}
}

// TestReplayNetworkCAInProject: the host's SSL_CERT_FILE names a bundle in
// the project, which the host's tools trust; the agent rewrites it with a
// certificate of its own (replay_network_ca_attack_test.go), then calls
// the API. The bundle is guarded, as what the host obeys is: the proof,
// on the host side, is that the agent's server got no key and the bundle
// is unchanged.
func TestReplayNetworkCAInProject(t *testing.T) {
	corp := harness.SelfSignedPEM(t)
	h, proj := caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "corp-ca.pem"), corp)
		return []string{"SSL_CERT_FILE=" + filepath.Join(proj, "corp-ca.pem")}, `cat /tmp/attacker.pem > "$SSL_CERT_FILE"`
	})
	if b := h.Run(h.Base, nil, "cat", filepath.Join(proj, "corp-ca.pem")); b != corp {
		t.Errorf("the bundle changed:\n%s", b)
	}
}

// TestReplayNetworkCertDirInProject: the same through SSL_CERT_DIR, Go's
// certificate directories: one in the project is guarded whole, so the
// sandbox cannot add a certificate of its own there.
func TestReplayNetworkCertDirInProject(t *testing.T) {
	_, proj := caAttack(t, func(h *harness.Host, proj string) ([]string, string) {
		h.Write(filepath.Join(proj, "certs", "README"), "x\n")
		return []string{"SSL_CERT_DIR=" + filepath.Join(proj, "certs")}, `cp /tmp/attacker.pem certs/evil.pem`
	})
	if _, err := os.Stat(filepath.Join(proj, "certs", "evil.pem")); err == nil {
		t.Error("the sandbox added a certificate to the host's SSL_CERT_DIR")
	}
}
