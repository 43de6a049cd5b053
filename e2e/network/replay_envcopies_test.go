package network

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The attack: the agent reads the user's other Claude credentials from its
// own environment. Every ANTHROPIC_* and CLAUDE_CODE_* variable used to
// pass by its prefix: an admin key, a gateway's key in
// ANTHROPIC_CUSTOM_HEADERS, Foundry's key, a client key's passphrase. The
// proof, from the host: no process inside holds any of their values, a
// model name passes, and the gateway's header reaches the upstream,
// added by the proxy on the host.

// leakProbe prints LEAK for each process inside whose environment or argv
// holds one of the secrets (each given in two halves, so that the probe's
// own argv holds none), and the model name the sandbox got.
func leakProbe(halves ...[2]string) string {
	var pat strings.Builder
	for _, h := range halves {
		pat.WriteString("printf '%s%s\\n' " + h[0] + " " + h[1] + " >> /tmp/pat\n")
	}
	return pat.String() + `for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do grep -q -a -F -f /tmp/pat "$f" 2>/dev/null && echo "LEAK $f"; done
grep -rlsF -f /tmp/pat ~ 2>/dev/null | sed 's/^/LEAK /'
echo "model=$ANTHROPIC_MODEL"
`
}

func TestReplayVariablesByExactName(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "curl", "apt-get install curl")
	secrets := map[string][2]string{
		"ANTHROPIC_ADMIN_KEY":               {"sk-ant-admin01-", "ADMINSECRET0123"},
		"ANTHROPIC_CUSTOM_HEADERS":          {"X-Gateway-Key: ", "GATEWAYSECRET0123"},
		"ANTHROPIC_FOUNDRY_API_KEY":         {"foundry-", "FOUNDRYSECRET0123"},
		"CLAUDE_CODE_CLIENT_KEY_PASSPHRASE": {"pass-", "PASSPHRASESECRET0123"},
	}
	api := harness.StartFakeAPI(t, "FAKE-REPLY")
	env := []string{"ANTHROPIC_BASE_URL=" + api.URL, "ANTHROPIC_API_KEY=sk-ant-api03-REALKEY", "ANTHROPIC_MODEL=claude-model-x"}
	var halves [][2]string
	for name, s := range secrets {
		env = append(env, name+"="+s[0]+s[1])
		halves = append(halves, [2]string{s[1][:5], s[1][5:]})
	}
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	out := h.Inside(proj, env, leakProbe(halves...)+
		`curl -s -o /dev/null -w 'api=%{http_code}\n' -X POST -H "x-api-key: $ANTHROPIC_API_KEY" -H 'content-type: application/json' -d '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}' "$ANTHROPIC_BASE_URL/v1/messages"`)
	if strings.Contains(out, "LEAK") || !strings.Contains(out, "model=claude-model-x") || !strings.Contains(out, "api=200") {
		t.Errorf("inside the sandbox:\n%s", out)
	}
	var sent bool
	for _, hd := range api.Headers() {
		sent = sent || hd.Get("X-Gateway-Key") == secrets["ANTHROPIC_CUSTOM_HEADERS"][1]
	}
	if !sent {
		t.Errorf("the proxy did not send the gateway's header upstream: %v", api.Headers())
	}
}

// The attack: the agent reads the private copy of the user's
// ~/.claude/settings.json, whose env block and helpers hold credentials
// (a Bedrock bearer token, a GitHub token, a gateway's headers, a key
// printed by apiKeyHelper), or, in a file that starts with a byte order
// mark (which Claude Code reads, and claudebox could not), the real
// ANTHROPIC_API_KEY. The proof, from the host: no file under the
// sandbox's home holds a value, and the harmless settings are kept.
func TestReplaySettingsCopyKeepsOnlyHarmless(t *testing.T) {
	h := harness.NewHost(t)
	secrets := [][2]string{{"BEDROCK", "SECRET0123"}, {"GITHUB", "SECRET0123"}, {"GATEWAY", "SECRET0123"}, {"HELPER", "SECRET0123"}, {"OTEL", "SECRET0123"}}
	settings := `{"env":{"AWS_BEARER_TOKEN_BEDROCK":"BEDROCKSECRET0123","GITHUB_TOKEN":"GITHUBSECRET0123",` +
		`"ANTHROPIC_CUSTOM_HEADERS":"X-Key: GATEWAYSECRET0123","ANTHROPIC_MODEL":"claude-model-x"},` +
		`"apiKeyHelper":"echo HELPERSECRET0123","otelHeadersHelper":"echo OTELSECRET0123",` +
		`"permissions":{"allow":["Bash(make:*)"]},"model":"opus"}`
	bom := `{"env":{"ANTHROPIC_API_KEY":"sk-ant-api03-BOMSECRET0123","BASH_DEFAULT_TIMEOUT_MS":"300000"}}`
	secrets = append(secrets, [2]string{"BOM", "SECRET0123"})
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), settings)
	h.Write(filepath.Join(h.Home, ".claude", "settings.local.json"), "\ufeff"+bom)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, leakProbe(secrets...)+`cat ~/.claude/settings.json ~/.claude/settings.local.json`)
	if strings.Contains(out, "LEAK") || strings.Contains(out, "SECRET") {
		t.Errorf("inside the sandbox:\n%s", out)
	}
	for _, kept := range []string{`"ANTHROPIC_MODEL": "claude-model-x"`, `"Bash(make:*)"`, `"model": "opus"`, `"BASH_DEFAULT_TIMEOUT_MS": "300000"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("the copy lost %s:\n%s", kept, out)
		}
	}
}

// The attack: an agent session reads the MCP servers' tokens and the
// model providers' keys from the copy of Codex's config.toml or Gemini's
// settings.json, or Claude's session of the same project reads Codex's
// copy in the instance. The proof, from the host: the agent (a stand-in
// program run as the agent is) finds no secret under its home, but the
// token of the one server carried in with --with-mcp; its harmless
// settings are there; and a later shell session of the project cannot
// read Codex's copy at all.
func TestReplayAgentConfigCopies(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), `model = "gpt-kept"
[mcp_servers.carried]
command = "carried-mcp"
env = { TOKEN = "CARRIEDSECRET0123" }
[mcp_servers.github]
command = "gh-mcp"
env = { GITHUB_TOKEN = "GITHUBSECRET0123" }
[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token = "BEARERSECRET0123"
http_headers = { Authorization = "Bearer HEADERSSECRET0123" }
[model_providers.corp]
name = "corp"
base_url = "https://llm.example.com/v1"
http_headers = { "X-Key" = "PROVIDERSECRET0123" }
[shell_environment_policy]
set = { DB_PASSWORD = "SHELLSECRET0123" }
`)
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"theme":"kept-theme"},
"mcpServers":{"carried":{"command":"c","env":{"TOKEN":"CARRIEDSECRET0123"}},
"github":{"command":"gh","env":{"GITHUB_TOKEN":"GITHUBSECRET0123"}},
"remote":{"httpUrl":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer HEADERSSECRET0123"},"oauth":{"clientSecret":"OAUTHSECRET0123"}}},
"billing":{"vertexAi":{"key":"BILLINGSECRET0123"}}}`)
	secrets := [][2]string{
		{"GITHUB", "SECRET0123"},
		{"BEARER", "SECRET0123"},
		{"HEADERS", "SECRET0123"},
		{"PROVIDER", "SECRET0123"},
		{"SHELL", "SECRET0123"},
		{"OAUTH", "SECRET0123"},
		{"BILLING", "SECRET0123"},
	}
	for _, a := range []struct{ name, config, kept string }{
		{"codex", "~/.codex/config.toml ~/.codex/config/config.toml", "gpt-kept"},
		{"gemini", "~/.gemini/settings.json", "kept-theme"},
	} {
		// The agent's program is a stand-in that looks for the secrets as
		// the agent could.
		h.Write(filepath.Join(h.Bin, a.name), "#!/bin/bash\n"+leakProbe(secrets...)+
			"grep -rlsF CARRIEDSECRET0123 ~ | sed 's/^/CARRIED /'\ncat "+a.config+"\n")
		os.Chmod(filepath.Join(h.Bin, a.name), 0o755)
		env := []string{"OPENAI_API_KEY=sk-test", "GEMINI_API_KEY=gm-test"}
		// Without --with-mcp, no server's secret; with it, the one
		// carried in, and no other.
		for _, carry := range []bool{false, true} {
			args := []string{"--agent", a.name}
			if carry {
				args = append(args, "--with-mcp", "carried", "--yes")
			}
			out := h.Run(proj, env, "claudebox", args...)
			if strings.Contains(out, "LEAK") || !strings.Contains(out, a.kept) || strings.Contains(out, "CARRIED ") != carry ||
				strings.Contains(strings.ReplaceAll(out, "CARRIEDSECRET0123", ""), "SECRET0123") {
				t.Errorf("inside %s's sandbox, carrying %v:\n%s", a.name, carry, out)
			}
		}
	}
	// Codex's copy is kept in the instance: no other session reads it.
	out := h.Inside(proj, nil, `cat ~/.claude/projects/agents/codex/config/config.toml 2>&1; find ~/.claude/projects -name config.toml`)
	if strings.Contains(out, "gpt-kept") || strings.Contains(out, "config.toml\n") && !strings.Contains(out, "No such file") {
		t.Errorf("a shell session reads Codex's copy:\n%s", out)
	}
}
