package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29rInPluginOptionNumbers: of the plugins' options in
// ~/.claude/settings.json (pluginConfigs), the copy judged strings only:
// a number crossed whatever its option's name said, a database's
// password or a PIN saved as a number (a plugin's option of type number)
// among them. The attack, from inside: read the settings' copy. Proof:
// neither is readable; a port still is.
func TestReplayReview29rInPluginOptionNumbers(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"model": "opus", "pluginConfigs": {
		"db@tools": {"options": {"db_password": 29839205711, "port": 5432}},
		"bank@tools": {"options": {"pin": 29471108}}}}`)
	out := h.Inside(proj, nil, "cat ~/.claude/settings.json")
	t.Log(out)
	for _, secret := range []string{"29839205711", "29471108"} {
		if strings.Contains(out, secret) {
			t.Errorf("a plugin's numeric password or PIN (%s) is readable inside, in the settings' copy", secret)
		}
	}
	if !strings.Contains(out, `"port": 5432`) {
		t.Errorf("inside, want the plugin's port, known harmless")
	}
}
