package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29InPluginOptionPasswords: of the plugins' options in
// ~/.claude/settings.json (pluginConfigs, where Claude Code keeps what a
// plugin's manifest does not mark sensitive), the copy kept every string
// but those whose option's name said a credential (token, secret, passw,
// key, …) or whose value looked like a token: a list of what to keep
// out. A plugin that asks for a database's password as db_pwd, a
// passphrase, a TOTP seed or a PIN had it saved there, unmarked, and each
// crossed. The attack, from inside: read the settings' copy. Proof: no
// such value is readable; what is known harmless (a switch, a number, a
// path, a host, a URL without a credential) still is.
func TestReplayReview29InPluginOptionPasswords(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"model": "opus", "pluginConfigs": {
		"db@tools": {"options": {"db_pwd": "R29pwdHunter2", "pass": "R29pass", "passphrase": "R29 correct horse battery",
			"host": "db.internal.example.com", "port": 5432, "dump_dir": "/home/alice/dumps", "readonly": true}},
		"otp@tools": {"options": {"totp": "R29JBSWY3DPEHPK", "pin": "R294711", "bearer": "R29abc.def",
			"issuer": "https://sso.example.com/realms/corp"}}}}`)
	out := h.Inside(proj, nil, "cat ~/.claude/settings.json")
	t.Log(out)
	if strings.Contains(out, "R29") {
		t.Errorf("a plugin's password, passphrase, seed or PIN is readable inside, in the settings' copy")
	}
	for _, want := range []string{`"db.internal.example.com"`, `"port": 5432`, `"/home/alice/dumps"`, `"readonly": true`, `"https://sso.example.com/realms/corp"`} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the plugins' option %s, known harmless", want)
		}
	}
}
