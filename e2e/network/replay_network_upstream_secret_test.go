package network

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayNetworkUpstreamSecret: the host's proxy variable holds its
// password unescaped (a space in it), which Go reads as the URL
// http://http: with the rest, password included, as its path, where a
// redacted URL still shows it. The attack: from inside, ask for an allowed
// name through the proxy and read the error the host's proxy path answers.
// The proof, on the host side: neither the answer inside nor the
// session's log holds the password.
func TestReplayNetworkUpstreamSecret(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"HTTPS_PROXY=http://alice:hunter2 secret@proxy.corp.test:8080", "HTTP_PROXY=http://alice:hunter2 secret@proxy.corp.test:8080", "CLAUDEBOX_RESOLVE=elsewhere.test=127.0.0.1"}
	out := h.Run(proj, env, "claudebox", "--shell", "--allow-host", "outside.test", "-c", `
		curl -sS --max-time 20 -p https://outside.test/ 2>&1
		curl -sS --max-time 20 http://outside.test/ 2>&1
		true
	`)
	t.Log(out)
	if !strings.Contains(out, "502") && !strings.Contains(out, "claudebox") {
		t.Errorf("the request did not reach the host's proxy path:\n%s", out)
	}
	log := h.SessionLogs()
	for _, where := range []string{out, log} {
		if strings.Contains(where, "hunter2") || strings.Contains(where, "secret") {
			t.Errorf("the host's proxy password reached the sandbox or the log:\n%s", where)
		}
	}
}
