package secretsearly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview20ManagedPolicyCredentials: /etc/claude-code, the
// organization's managed policy every user may read, was shown whole,
// though it holds what the user's own settings keep out: a token in
// managed-settings.json's env, a hook's webhook in a drop-in of
// managed-settings.d, a managed MCP server's bearer token in
// managed-mcp.json, and whatever else an administrator left beside them;
// so were /etc/codex (a model provider's bearer token in config.toml, an
// MCP server's in managed_config.toml, OpenTelemetry's headers in
// requirements.toml) and /etc/gemini-cli (an MCP server's headers). The
// attack, from inside: read them. Proof: none is readable inside; the
// policy itself (a deny rule, a server with no credential, the managed
// CLAUDE.md, Codex's model and allowed sandbox modes) still is;
// --dry-run names what it leaves out.
func TestReplayReview20ManagedPolicyCredentials(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "REVIEW20MANAGEDSECRET"
	stage := filepath.Join(h.Base, "etc")
	managed := filepath.Join(stage, "claude-code")
	h.Write(filepath.Join(managed, "managed-settings.json"), `{
  "permissions": {"deny": ["Bash(curl:*)"]},
  "env": {"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer `+secret+`-env", "DISABLE_TELEMETRY": "1"},
  "apiKeyHelper": "echo `+secret+`-helper"
}`)
	h.Write(filepath.Join(managed, "managed-settings.d", "50-team.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -s https://hooks.slack.com/services/T000/B000/`+secret+`dropin"}]}]}}`)
	h.Write(filepath.Join(managed, "managed-mcp.json"), `{"mcpServers": {
  "tracker": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer `+secret+`-mcp"}},
  "docs": {"type": "stdio", "command": "docs-mcp", "args": ["--readonly"]}
}}`)
	h.Write(filepath.Join(managed, "CLAUDE.md"), "Follow the company's style guide.\n")
	h.Write(filepath.Join(managed, "deploy.env"), "DEPLOY_TOKEN="+secret+"-beside\n")
	codex := filepath.Join(stage, "codex")
	h.Write(filepath.Join(codex, "config.toml"), "model = \"gpt-review20\"\n[model_providers.corp]\nbase_url = \"https://llm.example.com\"\nexperimental_bearer_token = \""+secret+"-codex\"\n")
	h.Write(filepath.Join(codex, "managed_config.toml"), "[mcp_servers.tracker]\nurl = \"https://mcp.example.com\"\nbearer_token = \""+secret+"-codexmanaged\"\n")
	h.Write(filepath.Join(codex, "requirements.toml"), "allowed_sandbox_modes = [\"read-only\", \"danger-full-access\"]\n[otel]\nheaders = { Authorization = \"Bearer "+secret+"-requirements\" }\n")
	h.Write(filepath.Join(stage, "gemini-cli", "settings.json"), `{"mcpServers": {"tracker": {"httpUrl": "https://mcp.example.com", "headers": {"Authorization": "Bearer `+secret+`-gemini"}}}}`)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("grep", "-r", secret, "/etc/claude-code", "/etc/codex", "/etc/gemini-cli"); strings.Count(host, secret) != 9 {
		t.Fatalf("the user cannot read the staged policy on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /etc; cat /etc/claude-code/managed-settings.json /etc/claude-code/managed-mcp.json /etc/claude-code/CLAUDE.md /etc/codex/*; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in the managed policy is readable inside:\n%s", out)
	}
	for _, want := range []string{"Bash(curl:*)", "DISABLE_TELEMETRY", "docs-mcp", "company's style guide", "gpt-review20", "danger-full-access"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the managed policy's %s:\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	if !strings.Contains(dry, "claude-code/deploy.env") || !strings.Contains(dry, " gemini-cli") {
		t.Errorf("--dry-run does not name what of /etc/claude-code it leaves out:\n%s", dry)
	}
}

// TestReplayReview20TLSPrivateKeys: of /etc/pki, tls was shown whole, its
// private/ with it, where Fedora's and RHEL's services keep their TLS
// keys: one an administrator left readable by every user was readable
// inside. The attack, from inside: read it. Proof: it is not, and
// --dry-run names private/ as not shown; the certificates and OpenSSL's
// settings still are.
func TestReplayReview20TLSPrivateKeys(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "REVIEW20TLSKEYSECRET"
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "pki", "tls", "private", "site.key"), "-----BEGIN PRIVATE KEY-----\n"+secret+"\n-----END PRIVATE KEY-----\n")
	h.Write(filepath.Join(stage, "pki", "tls", "certs", "site.crt"), harness.SelfSignedPEM(t))
	h.Write(filepath.Join(stage, "pki", "tls", "openssl.cnf"), "# REVIEW20-OPENSSL-CONF\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("cat", "/etc/pki/tls/private/site.key"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged key on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /etc/pki; grep -l CERTIFICATE /etc/pki/tls/certs/site.crt; cat /etc/pki/tls/openssl.cnf; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a TLS key in /etc/pki/tls/private is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "site.crt") || !strings.Contains(out, "REVIEW20-OPENSSL-CONF") {
		t.Errorf("inside, want the certificates and OpenSSL's settings:\n%s", out)
	}
	if dry := run("claudebox", "--dry-run", "--shell"); !strings.Contains(dry, "pki/tls/private") {
		t.Errorf("--dry-run does not name pki/tls/private as not shown:\n%s", dry)
	}
}

// TestReplayReview20SystemSSHConfig: /etc/ssh/ssh_config and ssh_config.d
// were shown as written, while the user's ~/.ssh/config enters only as
// the directives known harmless: an administrator's ProxyCommand with
// its token, or SetEnv's variables, in a file every user reads, were
// readable inside. The attack, from inside: read them. Proof: neither is
// readable, and ssh inside still follows the system's Include into
// ssh_config.d (a host alias's port there holds).
func TestReplayReview20SystemSSHConfig(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "REVIEW20SSHCONFIGSECRET"
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "ssh", "ssh_config"), "Include /etc/ssh/ssh_config.d/*.conf\nHost *\n  SendEnv LANG LC_*\n  SetEnv CORP_TOKEN="+secret+"-setenv\n")
	h.Write(filepath.Join(stage, "ssh", "ssh_config.d", "50-corp.conf"), "Host corp\n  Port 2222\nHost bastion\n  ProxyCommand corp-connect --token "+secret+"proxy %h\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("grep", "-r", secret, "/etc/ssh/ssh_config", "/etc/ssh/ssh_config.d"); strings.Count(host, secret) != 2 {
		t.Fatalf("the user cannot read the staged configuration on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /etc/ssh; ssh -G corp | grep -i '^port '; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a secret in the system's SSH configuration is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "port 2222") {
		t.Errorf("inside, ssh does not follow the system's Include into ssh_config.d:\n%s", out)
	}
}

// TestManagedGatewayReachesProxy: an organization's gateway named in its
// managed settings' env (ANTHROPIC_BASE_URL, over the user's own) is
// where the proxy forwards the real claude's requests, though the
// sandbox's copy of the policy names no API variable.
func TestManagedGatewayReachesProxy(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	api := harness.StartFakeAPI(t, "REPLY-FROM-THE-GATEWAY")
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "claude-code", "managed-settings.json"), `{"env": {"ANTHROPIC_BASE_URL": "`+api.URL+`"}}`)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	// The user's own points nowhere: only the managed one answers.
	env := []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:1", "ANTHROPIC_API_KEY=sk-ant-api03-managed-gateway", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	c := h.Command(proj, env, "claudebox", "-p", "hello")
	c.Args = append([]string{
		"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
		`mount -t overlay overlay -o lowerdir=` + stage + `:/etc /etc && exec "$@"`, "sh",
	}, c.Args...)
	c.Path = "/usr/bin/unshare"
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "REPLY-FROM-THE-GATEWAY") || len(api.Bodies()) == 0 {
		t.Errorf("claude's request did not reach the managed gateway: %v\n%s", err, out)
	}
}
