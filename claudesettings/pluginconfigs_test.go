package claudesettings

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Of the plugins' options, what may hold a credential goes, by its name
// or its value, at any depth and in lists; the rest, strings, switches
// and numbers, stays.
func TestPluginConfigsKept(t *testing.T) {
	in := `{
		"jira@m": {"options": {"site": "acme.atlassian.net", "api_token": "x", "verbose": true, "retries": 3, "dir": "/home/u/notes/2026/q4-planning"}},
		"n@m": {"options": {"hook": "https://hooks.slack.com/services/T0/B0/abcdefghij", "to": ["#dev", "ghp_abcdefghijklmnop"]},
			"mcpServers": {"pd": {"routing": "R0aB1cD2eF3gH4iJ5kL6mN7o", "region": "eu", "jwt": "x"}}},
		"s@m": {"options": {"login": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "name": "Release-Notes_Generator_Plugin"}}}`
	out, dropped := pluginConfigsKept(json.RawMessage(in))
	for _, gone := range []string{"api_token", "hooks.slack", "ghp_", "R0aB1c", "eyJ"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("kept %s: %s", gone, out)
		}
	}
	for _, kept := range []string{"acme.atlassian.net", `"verbose":true`, `"retries":3`, "q4-planning", `"#dev"`, `"eu"`, "Release-Notes_Generator_Plugin"} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("left out %s: %s", kept, out)
		}
	}
	want := []string{"pluginConfigs.jira@m.options.api_token", "pluginConfigs.n@m.mcpServers.pd.jwt", "pluginConfigs.n@m.mcpServers.pd.routing", "pluginConfigs.n@m.options.hook", "pluginConfigs.n@m.options.to[]", "pluginConfigs.s@m.options.login"}
	slices.Sort(dropped)
	if !slices.Equal(dropped, want) {
		t.Errorf("left out %q, want %q", dropped, want)
	}
	if out, dropped := pluginConfigsKept(json.RawMessage(`["x"]`)); out != nil || !slices.Equal(dropped, []string{"pluginConfigs"}) {
		t.Errorf("a block that is no object: %s, %q", out, dropped)
	}
}
