package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22AllowlistedVariableCredential: of the variables the
// allowlist passes by name, only the toolchain's and the providers' URLs
// had their values judged; the others crossed whatever they held: an
// EDITOR with a password on its command line, a model option of Claude
// Code's with a key in it. The attack, from inside: read the environment.
// Proof: neither value is inside or printed, the launch names both among
// the variables not passed; a PATH whose entry says "oauth" and a LANG
// still pass.
func TestReplayReview22AllowlistedVariableCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "Review22EnvSecretValue"
	path := "/opt/oauth:/opt/company-tools/bin:" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	env := []string{
		"EDITOR=code --wait --password=" + secret + "Editor",
		"ANTHROPIC_CUSTOM_MODEL_OPTION=gateway/claude?api_key=" + secret + "Model",
		"PATH=" + path,
		"LANG=C.UTF-8",
	}
	b, err := h.Command(proj, env, "claudebox", "--shell", "-c", "env").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	if strings.Contains(out, secret) {
		t.Errorf("a credential in an allowlisted variable is inside or printed:\n%s", out)
	}
	for _, want := range []string{":/opt/oauth:/opt/company-tools/bin:", "LANG=C.UTF-8"} {
		if !strings.Contains(out, want) {
			t.Errorf("%s, which holds no credential, was not passed:\n%s", want, out)
		}
	}
	_, notPassed, _ := strings.Cut(out, "variables not passed")
	notPassed, _, _ = strings.Cut(notPassed, "\n")
	if !strings.Contains(notPassed, "EDITOR") || !strings.Contains(notPassed, "ANTHROPIC_CUSTOM_MODEL_OPTION") {
		t.Errorf("the launch does not name EDITOR and ANTHROPIC_CUSTOM_MODEL_OPTION as not passed:\n%s", out)
	}
}
