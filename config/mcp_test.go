package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

// MCPServers carries exactly the named definitions; asks approval for one
// whose env or headers hold a value, or that a repository's file names, by
// the definition's digest; and refuses a name the host does not offer.
func TestMCPServers(t *testing.T) {
	offered := map[string]json.RawMessage{
		"plain":   json.RawMessage(`{"command":"srv","env":{}}`),
		"empty":   json.RawMessage(`{"command":"srv","env":{"A":""},"headers":{}}`),
		"token":   json.RawMessage(`{"command":"srv","env":{"TOKEN":"x"}}`),
		"header":  json.RawMessage(`{"type":"http","url":"https://x","headers":{"Authorization":"Bearer y"}}`),
		"strange": json.RawMessage(`{"command":"srv","env":["TOKEN=x"]}`),
		"other":   json.RawMessage(`{"command":"srv"}`),
	}
	l, err := merge([]layer{
		{Settings: Settings{MCP: []string{"plain", "empty", "token", "header", "strange"}}, own: true},
		{Settings: Settings{MCP: []string{"plain", "repo"}}, from: ".claudebox.toml"},
	}, "/home/u", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	offered["repo"] = json.RawMessage(`{"command":"r"}`)
	servers, items, err := l.MCPServers(offered)
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 6 || servers["other"] != nil || string(servers["token"]) != string(offered["token"]) {
		t.Errorf("carried %v", servers)
	}
	var shown []string
	for _, it := range items {
		if it.grant.kind != kindMCP || it.grant.digest != sum(string(offered[it.grant.name])) {
			t.Errorf("%+v: not the definition's digest", it.grant)
		}
		shown = append(shown, it.Show)
	}
	want := []string{
		"MCP server token (its env or headers hold values)",
		"MCP server header (its env or headers hold values)",
		"MCP server strange (its env or headers hold values)",
		"MCP server repo (from .claudebox.toml)",
	}
	if !reflect.DeepEqual(shown, want) {
		t.Errorf("items %q, want %q", shown, want)
	}
	if _, _, err := (Launch{MCP: []MCPName{{Name: "absent"}}}).MCPServers(offered); err == nil {
		t.Error("a name the host does not offer is carried")
	}
	if _, err := merge([]layer{{Settings: Settings{MCP: []string{"../x"}}, own: true}}, "/", "/"); err == nil {
		t.Error("an invalid name is accepted")
	}
}

// Codex's and Gemini's servers hold their tokens in other keys: each of
// them waits for approval as env and headers do.
func TestHoldsValuesOtherAgents(t *testing.T) {
	for def, want := range map[string]bool{
		`{"url":"https://x","bearer_token":"s"}`:           true,
		`{"url":"https://x","http_headers":{"K":"s"}}`:     true,
		`{"httpUrl":"https://x","oauth":{"clientId":"c"}}`: true,
		`{"url":"https://x","bearer_token_env_var":"T"}`:   false,
		`{"command":"c","args":["a"]}`:                     false,
	} {
		if got := holdsValues(json.RawMessage(def)); got != want {
			t.Errorf("holdsValues(%s) = %v, want %v", def, got, want)
		}
	}
}
