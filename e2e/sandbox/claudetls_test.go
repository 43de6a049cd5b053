package sandbox

import (
	"encoding/pem"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxClaudeOverTLS: the real Claude Code, in a session whose API
// is reached over TLS through a CA the host trusts (a corporate gateway's,
// named by NODE_EXTRA_CA_CERTS): its call goes through the proxy, which
// builds that trust beside the session or at the call, and reaches the
// API with the real key.
func TestSandboxClaudeOverTLS(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-TLS-5c1e")
	gateway := httptest.NewTLSServer(api)
	defer gateway.Close()
	caFile := filepath.Join(h.Base, "corp", "ca.pem")
	h.Write(caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: gateway.Certificate().Raw})))
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_BASE_URL=" + gateway.URL, "ANTHROPIC_API_KEY=sk-ant-tls-key", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "NODE_EXTRA_CA_CERTS=" + caFile}
	if out := h.Run(proj, env, "claudebox", "-p", "hello"); !strings.Contains(out, "FAKE-REPLY-TLS-5c1e") {
		t.Fatalf("claudebox -p hello over TLS printed %q, want the fake reply", out)
	}
	var keys []string
	for _, hd := range api.Headers() {
		keys = append(keys, hd.Get("X-Api-Key"))
	}
	if len(keys) == 0 || keys[0] != "sk-ant-tls-key" {
		t.Errorf("the API got the keys %q, want the real key", keys)
	}
}
