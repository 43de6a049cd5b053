package secretsearly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview21ToolchainVariableCredential: a toolchain's variable
// the allowlist passes by name held a credential that is no URL's user
// (GOFLAGS with a key in -ldflags -X, GOPROXY with a token in its path):
// only an @ in the value kept one out. Proof inside: neither value is in
// the sandbox's environment; the launch names both among the variables
// not passed, without their values.
func TestReplayReview21ToolchainVariableCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	env := []string{
		"GOFLAGS=-ldflags=-X=main.apiKey=sk-ant-api03-abcdefghijklmnop",
		"GOPROXY=https://goproxy.corp/api/go/token/ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"GOPRIVATE=corp.example/*",
	}
	b, err := h.Command(proj, env, "claudebox", "--shell", "-c", "env").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	for _, secret := range []string{"sk-ant-api03", "ghp_"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s is inside or printed:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "GOPRIVATE=corp.example/*") {
		t.Errorf("GOPRIVATE, which holds no credential, was not passed:\n%s", out)
	}
	_, notPassed, _ := strings.Cut(out, "variables not passed")
	notPassed, _, _ = strings.Cut(notPassed, "\n")
	if !strings.Contains(notPassed, "GOFLAGS") || !strings.Contains(notPassed, "GOPROXY") {
		t.Errorf("the launch does not name GOFLAGS and GOPROXY as not passed:\n%s", out)
	}
}
