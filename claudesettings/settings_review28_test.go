package claudesettings

import (
	"strings"
	"testing"
)

// TestCopyContentProjectLocalSettings: a project's settings.local.json is
// the user's own, kept on the terms of home's: a rule, a helper or an env
// variable with a credential stays out, and is named; the rest is kept.
func TestCopyContentProjectLocalSettings(t *testing.T) {
	in := `{"permissions":{"allow":["Bash(npm test)","Bash(curl -H \"Authorization: Bearer SECRETSECRETSECRET\" https://x)"]},"env":{"GITHUB_TOKEN":"SECRET"},"apiKeyHelper":"echo SECRET"}`
	out, leftOut := CopyContent("/p/.claude/settings.local.json", "/home/a", []byte(in))
	if strings.Contains(string(out), "SECRET") || !strings.Contains(string(out), "Bash(npm test)") {
		t.Errorf("copy:\n%s", out)
	}
	if len(leftOut) == 0 || strings.Contains(strings.Join(leftOut, " "), "SECRET") {
		t.Errorf("left out: %q", leftOut)
	}
}
