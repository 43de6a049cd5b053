package claudesettings

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Of the plugins' options, at any depth and in lists, a string stays only
// when it is known to hold no credential (a path, a URL without one, a
// host given to an option named for a place), and none whose name or
// value says one; switches stay, and numbers named as quantities.
func TestPluginConfigsKept(t *testing.T) {
	in := `{
		"jira@m": {"options": {"site": "acme.atlassian.net", "api_token": "x", "verbose": true, "retries": 3, "dir": "/home/u/notes/2026/q4-planning"}},
		"n@m": {"options": {"hook": "https://hooks.slack.com/services/T0/B0/abcdefghij", "to": ["#dev", "ghp_abcdefghijklmnop", "~/inbox"]},
			"mcpServers": {"pd": {"routing": "R0aB1cD2eF3gH4iJ5kL6mN7o", "region": "eu", "jwt": "x", "endpoint": "https://events.pagerduty.com/v2"}}},
		"s@m": {"options": {"login": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "name": "Release-Notes_Generator_Plugin"}},
		"db@m": {"options": {"db_pwd": "hunter2!", "pass": "S3cr3t", "passphrase": "correct horse battery staple", "totp": "JBSWY3DPEHPK3PXP",
			"pin": "4711", "bearer": "abc.def", "db_host": "db.example.com:5432", "api": "https://ci:pw@ci.example.com",
			"feed": "https://feeds.example.com/v1/Zx81kA9qLm2pP0Q7aB3cD4/rss", "docs": "https://docs.example.com/guide?key=abc", "empty": ""}}}`
	out, dropped := pluginConfigsKept(json.RawMessage(in))
	for _, gone := range []string{"api_token", "hooks.slack", "ghp_", "R0aB1c", "eyJ", "#dev", `"eu"`, "Release-Notes", "hunter2", "S3cr3t", "horse", "JBSWY3", "4711", "abc.def", "ci:pw", "Zx81kA9", "key=abc"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("kept %s: %s", gone, out)
		}
	}
	for _, kept := range []string{"acme.atlassian.net", `"verbose":true`, `"retries":3`, "q4-planning", `"~/inbox"`, `"https://events.pagerduty.com/v2"`, `"db.example.com:5432"`, `"empty":""`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("left out %s: %s", kept, out)
		}
	}
	want := []string{
		"pluginConfigs.db@m.options.api", "pluginConfigs.db@m.options.bearer", "pluginConfigs.db@m.options.db_pwd", "pluginConfigs.db@m.options.docs",
		"pluginConfigs.db@m.options.feed", "pluginConfigs.db@m.options.pass", "pluginConfigs.db@m.options.passphrase", "pluginConfigs.db@m.options.pin",
		"pluginConfigs.db@m.options.totp", "pluginConfigs.jira@m.options.api_token", "pluginConfigs.n@m.mcpServers.pd.jwt", "pluginConfigs.n@m.mcpServers.pd.region",
		"pluginConfigs.n@m.mcpServers.pd.routing", "pluginConfigs.n@m.options.hook", "pluginConfigs.n@m.options.to[]", "pluginConfigs.n@m.options.to[]",
		"pluginConfigs.s@m.options.login", "pluginConfigs.s@m.options.name",
	}
	slices.Sort(dropped)
	if !slices.Equal(dropped, want) {
		t.Errorf("left out %q, want %q", dropped, want)
	}
	if out, dropped := pluginConfigsKept(json.RawMessage(`["x"]`)); out != nil || !slices.Equal(dropped, []string{"pluginConfigs"}) {
		t.Errorf("a block that is no object: %s, %q", out, dropped)
	}
}

// Of the settings the copy keeps, a command setting with a credential in
// its command goes whole, a rule with one goes alone, and a URL's login
// stays for the copy to take out of the URL.
func TestCopyContentCommandsAndRules(t *testing.T) {
	home := t.TempDir()
	in := `{"model": "opus",
		"subagentStatusLine": {"type": "command", "command": "curl -H 'Authorization: Bearer abcdefghijklmnopqrstu' https://x"},
		"fileSuggestion": {"type": "command", "command": "fd --hidden"},
		"permissions": {"allow": ["Bash(git status)", "Bash(curl -u ci:s3cretpass https://ci/*)"], "deny": ["Read(./.env)"]},
		"extraKnownMarketplaces": {"corp": {"source": {"source": "git", "url": "https://oauth2:glpat-abcdefghijklmnop@gitlab.example/m.git"}}}}`
	out, leftOut := CopyContent(filepath.Join(home, ".claude", "settings.json"), home, []byte(in))
	for _, gone := range []string{"abcdefghijklmnopqrstu", "s3cretpass", "glpat-"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("kept %s:\n%s", gone, out)
		}
	}
	for _, kept := range []string{`"opus"`, `"fd --hidden"`, `"Bash(git status)"`, `"Read(./.env)"`, "https://gitlab.example/m.git"} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("left out %s:\n%s", kept, out)
		}
	}
	for _, want := range []string{"subagentStatusLine (a command holding a credential)", "permissions.allow[]", urlCredentials} {
		if !slices.Contains(leftOut, want) {
			t.Errorf("left out %q, want %s named", leftOut, want)
		}
	}
}
