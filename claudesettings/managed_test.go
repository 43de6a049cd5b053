package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/environment"
)

// TestManagedPolicyKept: the organization's managed settings, their
// drop-ins and managed-mcp.json keep only what is known harmless, as the
// user's own settings do; an MCP server whose definition may hold a
// credential is left out whole, by name.
func TestManagedPolicyKept(t *testing.T) {
	for _, tc := range []struct {
		name, src, in, want string
		leftOut             []string
	}{
		{
			"settings", "/etc/claude-code/managed-settings.json",
			`{"permissions":{"deny":["Bash(curl:*)"]},"env":{"OTEL_EXPORTER_OTLP_HEADERS":"Authorization=Bearer s","DISABLE_TELEMETRY":"1"},"apiKeyHelper":"echo s",` +
				`"managedMcpServers":{"docs":{"command":"docs-mcp"},"tracker":{"url":"https://mcp.example.com","headers":{"Authorization":"Bearer s"}}}}`,
			`{"permissions":{"deny":["Bash(curl:*)"]},"env":{"DISABLE_TELEMETRY":"1"},"managedMcpServers":{"docs":{"command":"docs-mcp"}}}`,
			[]string{"apiKeyHelper", "env.OTEL_EXPORTER_OTLP_HEADERS", "managedMcpServers.tracker"},
		},
		{
			"a drop-in", "/etc/claude-code/managed-settings.d/50-team.json",
			`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"curl https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX"}]}]}}`,
			`{"hooks":{"Stop":[{"hooks":[]}]}}`,
			[]string{"hooks.Stop (command hook holding a credential)"},
		},
		{
			"MCP servers", "/etc/claude-code/managed-mcp.json",
			`{"mcpServers":{` +
				`"docs":{"type":"stdio","command":"docs-mcp","args":["--readonly"],"env":{}},` +
				`"web":{"type":"http","url":"https://mcp.example.com/mcp","timeout":30},` +
				`"tracker":{"type":"http","url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer s"}},` +
				`"db":{"command":"db-mcp","env":{"DB_PASSWORD":"s"}},` +
				`"cli":{"command":"cli-mcp","args":["--api-key","sk-ant-XXXXXXXXXXXXXXXX"]},` +
				`"url":{"type":"sse","url":"https://u:pw@mcp.example.com/sse"},` +
				`"oauth":{"type":"http","url":"https://mcp.example.com","oauth":{"clientSecret":"s"}},` +
				`"odd":"s"},"note":"s"}`,
			`{"mcpServers":{"docs":{"type":"stdio","command":"docs-mcp","args":["--readonly"],"env":{}},"web":{"type":"http","url":"https://mcp.example.com/mcp","timeout":30}}}`,
			nil,
		},
		{"MCP servers not an object", "/etc/claude-code/managed-mcp.json", `{"mcpServers":["s"]}`, `{"mcpServers":{}}`, []string{"mcpServers"}},
		{"MCP servers unreadable", "/etc/claude-code/managed-mcp.json", `{"mcpServers":{"a":"s",}}`, `{"mcpServers":{}}`, []string{unreadable}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, leftOut := CopyContent(tc.src, "/home/a", []byte(tc.in))
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("the copy is not JSON: %v: %s", err, out)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("copy %s, want %s", out, tc.want)
			}
			if tc.leftOut != nil && !slices.Equal(leftOut, tc.leftOut) {
				t.Errorf("left out %q, want %q", leftOut, tc.leftOut)
			}
		})
	}
	_, leftOut := CopyContent("/etc/claude-code/managed-mcp.json", "/home/a", []byte(`{"mcpServers":{"tracker":{"headers":{"A":"s"}},"db":{"env":{"A":"s"}}},"note":"s"}`))
	if want := []string{"note", "mcpServers.db", "mcpServers.tracker"}; !slices.Equal(leftOut, want) {
		t.Errorf("left out %q, want %q", leftOut, want)
	}
}

// TestAPIEnvManaged: the API variables of the organization's managed
// settings and their drop-ins come after the user's, and so win: the
// proxy forwards to the company's gateway, which the sandbox's copy of the
// policy no longer names.
func TestAPIEnvManaged(t *testing.T) {
	home, managed := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(home, ".claude", "settings.json")
	write(user, `{"env":{"ANTHROPIC_BASE_URL":"https://mine","ANTHROPIC_API_KEY":"k"}}`)
	write(filepath.Join(managed, "managed-settings.json"), `{"env":{"ANTHROPIC_BASE_URL":"https://gw.corp"}}`)
	write(filepath.Join(managed, "managed-settings.d", "20-b.json"), `{"env":{"ANTHROPIC_BASE_URL":"https://gw2.corp"}}`)
	write(filepath.Join(managed, "managed-settings.d", "10-a.json"), `{"env":{"ANTHROPIC_CUSTOM_HEADERS":"X-Team: a"}}`)
	got := apiEnv(append([]string{user}, managedSettingsFiles(managed)...))
	want := []string{"ANTHROPIC_BASE_URL=https://mine", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=https://gw.corp", "ANTHROPIC_CUSTOM_HEADERS=X-Team: a", "ANTHROPIC_BASE_URL=https://gw2.corp"}
	if !slices.Equal(got, want) {
		t.Errorf("apiEnv = %q, want %q", got, want)
	}
	env, err := environment.Resolve(append([]string{"ANTHROPIC_BASE_URL=https://shell"}, got...), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := env.APILookup("ANTHROPIC_BASE_URL"); u != "https://gw2.corp" {
		t.Errorf("the proxy's upstream: %q, want the last drop-in's", u)
	}
}
