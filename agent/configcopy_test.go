package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// Codex's copy keeps the keys known harmless (each profile's too, and of
// projects only their trust), the MCP servers carried in, and names what
// it left out; a file that is not TOML gives an empty copy.
func TestCodexConfigCopy(t *testing.T) {
	host := "\ufeff" + `model = "m"
profile = "p"
[profiles.p]
model = "m2"
chatgpt_base_url = "https://x"
[projects."/p"]
trust_level = "trusted"
secret = "s"
[projects."/home/u/clients/acme"]
trust_level = "trusted"
[projects."/p/sub"]
trust_level = "untrusted"
[projects."/pp"]
trust_level = "trusted"
[mcp_servers.a]
command = "a"
env = { T = "s" }
[mcp_servers.b]
bearer_token = "s"
[model_providers.x]
http_headers = { K = "s" }
[otel]
environment = "s"
`
	out, leftOut := CodexConfigCopy([]byte(host), []string{"a"}, "/p")
	var got map[string]any
	if err := toml.Unmarshal(out, &got); err != nil {
		t.Fatalf("the copy is not TOML: %v\n%s", err, out)
	}
	b, _ := json.Marshal(got)
	if want := `{"mcp_servers":{"a":{"command":"a","env":{"T":"s"}}},"model":"m","profile":"p","profiles":{"p":{"model":"m2"}},"projects":{"/p":{"trust_level":"trusted"},"/p/sub":{"trust_level":"untrusted"}}}`; string(b) != want {
		t.Errorf("copy %s, want %s", b, want)
	}
	if want := []string{"model_providers", "otel", "profiles.p.chatgpt_base_url"}; !slices.Equal(leftOut, want) {
		t.Errorf("left out %q, want %q", leftOut, want)
	}
	if out, leftOut := CodexConfigCopy([]byte(`model = "m`), nil, "/p"); len(out) != 0 || !slices.Equal(leftOut, []string{Unreadable}) {
		t.Errorf("not TOML: %q %q", out, leftOut)
	}
	if out, leftOut := CodexConfigCopy(nil, nil, "/p"); len(out) != 0 || leftOut != nil {
		t.Errorf("no file: %q %q", out, leftOut)
	}
}

// Codex's system files, every user's to read, are rebuilt of what is
// known harmless: its configuration as the user's, with no MCP server;
// of its requirements, the keys known harmless with no credential in
// them. Any other path is none of them.
func TestSystemCopy(t *testing.T) {
	for _, name := range []string{"config.toml", "managed_config.toml"} {
		out, leftOut, ok := SystemCopy("/etc/codex/"+name, []byte("model = \"m\"\n[mcp_servers.a]\nbearer_token = \"s\"\n[model_providers.x]\nexperimental_bearer_token = \"s\"\n"), "/p")
		if !ok || strings.Contains(string(out), "\"s\"") || !strings.Contains(string(out), "model = 'm'") || !slices.Equal(leftOut, []string{"model_providers"}) {
			t.Errorf("%s: copy %q, left out %q, %v", name, out, leftOut, ok)
		}
	}
	out, leftOut, ok := SystemCopy("/etc/codex/requirements.toml", []byte(`allowed_sandbox_modes = ["read-only"]
additional_developer_instructions = "deploy with --token ghp_0123456789abcdefghij"
[otel]
headers = { Authorization = "Bearer s" }
[mcp_servers.a.identity]
command = "a"
`), "/p")
	if !ok || string(out) != "allowed_sandbox_modes = ['read-only']\n" {
		t.Errorf("requirements: copy %q, %v", out, ok)
	}
	if want := []string{"additional_developer_instructions (a credential is written in it)", "mcp_servers", "otel"}; !slices.Equal(leftOut, want) {
		t.Errorf("requirements: left out %q, want %q", leftOut, want)
	}
	if _, leftOut, ok := SystemCopy("/etc/codex/requirements.toml", []byte("allowed = ["), "/p"); !ok || !slices.Equal(leftOut, []string{Unreadable}) {
		t.Errorf("requirements not TOML: left out %q", leftOut)
	}
	if _, _, ok := SystemCopy("/etc/codex/notes.toml", nil, "/p"); ok {
		t.Error("a file Codex does not read is taken for one of its system files")
	}
}

// Gemini's copy keeps the keys known harmless and the servers carried in,
// with claudebox's overrides; a later duplicate key wins, as in JSON.parse.
func TestGeminiSettingsCopy(t *testing.T) {
	host := `{"ui":{"theme":"t"},"mcpServers":{"a":{"command":"a"},"b":{"headers":{"K":"s"}}},"billing":{"x":"s"},"telemetry":{"otlpEndpoint":"s"},"admin":1,"admin":{"x":"s"},` +
		`"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"curl https://hooks.slack.com/services/T0/B0/s0123456789"}]}]}}`
	out, leftOut := Gemini.SettingsCopy([]byte(host), []string{"a"})
	if strings.Contains(string(out), `"s"`) || !strings.Contains(string(out), `"theme": "t"`) || !strings.Contains(string(out), `"command": "a"`) ||
		!strings.Contains(string(out), `"sandbox": false`) {
		t.Errorf("copy %s", out)
	}
	if want := []string{"admin", "billing", "hooks (a credential is written in it)", "telemetry"}; !slices.Equal(leftOut, want) {
		t.Errorf("left out %q, want %q", leftOut, want)
	}
	if out, leftOut := Gemini.SettingsCopy([]byte(`{"ui":`), nil); strings.Contains(string(out), "ui") || !slices.Equal(leftOut, []string{Unreadable}) {
		t.Errorf("not JSON: %s %q", out, leftOut)
	}
}

// Gemini reads its settings with comments taken out: so does its copy,
// and a comment's marks inside a string stay the string's.
func TestGeminiSettingsComments(t *testing.T) {
	host := "{\n// the theme\n\"ui\": {\"theme\": \"a//b /*c*/ \\\" d\"}, /* gone\n */ \"billing\": {\"k\": \"s\"}\n}"
	top, ok := Gemini.parse([]byte(host))
	if !ok {
		t.Fatalf("not read: %q", withoutComments([]byte(host)))
	}
	if theme := top["ui"].(map[string]any)["theme"]; theme != `a//b /*c*/ " d` || top["billing"] == nil {
		t.Errorf("read %v", top)
	}
	if _, ok := Gemini.parse([]byte(`{"ui": {} /* unterminated`)); ok {
		t.Error("an unterminated comment swallowed the rest and still read")
	}
}

// Of an agent's trust answers, only the project's, a folder's in it and
// one's above it enter: another folder's names the user's other projects.
func TestTrustCopy(t *testing.T) {
	host := `{"/home/u/work": "TRUST_PARENT", "/home/u/work/app": "TRUST_FOLDER", "/home/u/work/app/vendor": "DO_NOT_TRUST", "/home/u/clients/acme": "TRUST_FOLDER", "/home/u/work/app2": "TRUST_FOLDER", "/": "DO_NOT_TRUST"}`
	var got map[string]string
	if err := json.Unmarshal(TrustCopy([]byte(host), "/home/u/work/app"), &got); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"/":"DO_NOT_TRUST","/home/u/work":"TRUST_PARENT","/home/u/work/app":"TRUST_FOLDER","/home/u/work/app/vendor":"DO_NOT_TRUST"}`; string(b) != want {
		t.Errorf("copy %s, want %s", b, want)
	}
	if got := TrustCopy([]byte("not json"), "/p"); len(got) != 0 {
		t.Errorf("not JSON: %q", got)
	}
}

// Of Gemini's extension rules, only those that can match a folder of
// the project enter.
func TestEnablementCopy(t *testing.T) {
	host := `{"deploy": {"overrides": ["!/home/u/clients/acme/*", "/home/u/work/*", "/home/u/work/app/", "!/home/u/work/app/vendor/*", "/home/u/work/app2/*", "relative/*"]}, "other": {"overrides": []}}`
	out, ok := EnablementCopy([]byte(host), "/home/u/work/app")
	var got map[string]map[string][]string
	if err := json.Unmarshal(out, &got); !ok || err != nil {
		t.Fatalf("%v %v: %s", ok, err, out)
	}
	b, _ := json.Marshal(got)
	if want := `{"deploy":{"overrides":["/home/u/work/*","/home/u/work/app/","!/home/u/work/app/vendor/*"]},"other":{"overrides":[]}}`; string(b) != want {
		t.Errorf("copy %s, want %s", b, want)
	}
	if _, ok := EnablementCopy([]byte(`{"x": 1}`), "/p"); ok {
		t.Error("what does not read as rules is shown")
	}
}
