package firstdayearly

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDaySettingsAndMCPConfigFlags: the settings and MCP servers
// claude's own --settings and --mcp-config name, by a file outside the
// project (in the home, or in /tmp's tree) or as inline JSON, reach
// Claude inside as they reach the host's claude (claude inside said
// "Settings file not found" and ended), on the terms of the user's own
// ~/.claude/settings.json and --with-mcp: what is known harmless
// crosses (a model, a hook's script, a server with no token), a token in
// env, apiKeyHelper and a server holding a token do not, in the file's
// copy, claude's command line inside or --dry-run, and the launch names
// what it left out.
func TestFirstDaySettingsAndMCPConfigFlags(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const (
		token     = "ghp_SETTINGSFLAGSECRET0123456789abcdefABCD"
		helper    = "APIKEYHELPER-SECRET-x9"
		mcpSecret = "MCPCONFIG-SECRET-TOKEN-0123456789abcdef"
	)
	hook := filepath.Join(h.Home, "bin", "hook.sh")
	h.Write(hook, "#!/bin/sh\necho HOOK-FROM-SETTINGS-FLAG-r5\n")
	server := filepath.Join(h.Home, "bin", "mcp.sh")
	h.Write(server, harness.MCPServerScript)
	settings := `{
  "model": "claude-sonnet-settingsflag-m1",
  "env": {"GITHUB_TOKEN": "` + token + `"},
  "apiKeyHelper": "echo ` + helper + `",
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "` + hook + `"}]}]}
}
`
	homeSettings := filepath.Join(h.Home, "conf", "claude-settings.json")
	tmpSettings := filepath.Join(h.Base, "claude-settings.json")
	h.Write(homeSettings, settings)
	h.Write(tmpSettings, settings)
	mcpConfig := filepath.Join(h.Home, "conf", "mcp.json")
	h.Write(mcpConfig, `{"mcpServers": {
  "pingsrv": {"command": "`+server+`"},
  "tokensrv": {"command": "`+server+`", "env": {"TOKEN": "`+mcpSecret+`"}}
}}
`)
	h.Chown()
	const key = "sk-ant-test-key-settingsflag-0123456789"
	h.Onboarded(key, proj)
	look := "cat " + homeSettings + " " + tmpSettings + " " + mcpConfig + "; tr '\\0' ' ' </proc/*/cmdline; env"
	inline := strings.ReplaceAll(strings.ReplaceAll(settings, "\n", ""), hook, "true")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"home", []string{"--settings", "../../conf/claude-settings.json"}},
		{"tmp", []string{"--settings=" + tmpSettings}},
		{"inline", []string{"--settings", inline}},
	} {
		for _, prog := range []string{"claude", "claudebox"} {
			api := harness.StartScriptedAPI(t, "FAKE-REPLY-settingsflag",
				harness.ToolCall{Name: "Bash", Input: map[string]any{"command": look, "description": "look"}})
			var stdout, stderr bytes.Buffer
			cmd := h.Command(proj, api.Env(key), prog, append(c.args, "--allowedTools", "Bash", "-p", "hello")...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-settingsflag") {
				t.Errorf("%s %s: %v\n%s%s", prog, c.name, err, stdout.String(), stderr.String())
				continue
			}
			if !api.Received("claude-sonnet-settingsflag-m1") {
				t.Errorf("%s %s: the settings' model did not reach the API", prog, c.name)
			}
			if prog != "claudebox" {
				continue
			}
			if c.name != "inline" && !api.Received("HOOK-FROM-SETTINGS-FLAG-r5") {
				t.Errorf("%s: the settings' hook did not run", c.name)
			}
			for id, r := range api.ToolResults() {
				for _, secret := range []string{token, helper, mcpSecret} {
					if strings.Contains(r, secret) {
						t.Errorf("%s: %s readable inside (%s)", c.name, secret, id)
					}
				}
			}
			if c.name == "home" && (!strings.Contains(stderr.String(), "left out of the sandbox's copy of ~/conf/claude-settings.json: apiKeyHelper, env.GITHUB_TOKEN")) {
				t.Errorf("the launch does not name what it left out:\n%s", stderr.String())
			}
		}
	}
	out, err := h.Command(proj, []string{"ANTHROPIC_API_KEY=" + key}, "claudebox", "--dry-run", "--settings", inline, "--mcp-config", `{"mcpServers":{"t":{"command":"x","env":{"TOKEN":"`+mcpSecret+`"}}}}`).CombinedOutput()
	if err != nil || strings.Contains(string(out), token) || strings.Contains(string(out), helper) || strings.Contains(string(out), mcpSecret) {
		t.Errorf("--dry-run with inline JSON: %v, or a secret printed:\n%s", err, out)
	}

	calls := []harness.ToolCall{
		{Name: "mcp__pingsrv__ping", Input: map[string]any{}},
		{Name: "mcp__tokensrv__ping", Input: map[string]any{}},
		{Name: "Bash", Input: map[string]any{"command": look, "description": "look"}},
	}
	for _, prog := range []string{"claude", "claudebox"} {
		api := harness.StartScriptedAPI(t, "FAKE-REPLY-mcpconfig", calls...)
		var stdout, stderr bytes.Buffer
		cmd := h.Command(proj, api.Env(key), prog, "--mcp-config", "../../conf/mcp.json", "--allowedTools", "mcp__pingsrv__ping,mcp__tokensrv__ping,Bash", "-p", "ping")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-mcpconfig") {
			t.Errorf("%s --mcp-config: %v\n%s%s", prog, err, stdout.String(), stderr.String())
			continue
		}
		if prog == "claude" {
			continue
		}
		results := api.ToolResults()
		if !strings.Contains(results["toolu_fake_0"], "MCP-PONG-") {
			t.Errorf("--mcp-config: the server with no token did not answer: %q", results["toolu_fake_0"])
		}
		for id, r := range results {
			if strings.Contains(r, mcpSecret) {
				t.Errorf("--mcp-config: the server's token readable inside (%s): %q", id, r)
			}
		}
		if !strings.Contains(stderr.String(), "mcpServers.tokensrv") || !strings.Contains(stderr.String(), "--with-mcp NAME") {
			t.Errorf("--mcp-config: the launch does not name the server it left out:\n%s", stderr.String())
		}
	}
}

// TestFirstDayNoResumeLineWithoutSession: a claude subcommand that holds
// no conversation (auth status), run right after a session, ends with no
// "resume this session" line (it named the session before it, whose
// transcript was written within the filesystem clock's slack); a
// session continued with --continue still names it.
func TestFirstDayNoResumeLineWithoutSession(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-resumeline-0123456789"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-resumeline")
	run := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		cmd := h.Command(proj, api.Env(key), "claudebox", args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox %q: %v\n%s%s", args, err, stdout.String(), stderr.String())
		}
		return stderr.String()
	}
	const resume = "resume this session with"
	if out := run("-p", "first"); !strings.Contains(out, resume) {
		t.Fatalf("a session ends without its resume line:\n%s", out)
	}
	if out := run("auth", "status"); strings.Contains(out, resume) {
		t.Errorf("claudebox auth status names a session to resume:\n%s", out)
	}
	if out := run("--continue", "-p", "again"); !strings.Contains(out, resume) {
		t.Errorf("a continued session ends without its resume line:\n%s", out)
	}
}

// TestFirstDayIDEConnectionNamed: with an IDE's extension running on the
// host (its lock in ~/.claude/ide, with the connection's token), the
// launch says once per project that /ide inside finds no IDE and why
// (Claude inside said only "No available IDEs detected"); the lock's
// token stays unreadable inside.
func TestFirstDayIDEConnectionNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const ideToken = "IDE-AUTH-TOKEN-9f8e7d6c5b4a"
	h.Write(filepath.Join(h.Home, ".claude", "ide", "41234.lock"), `{"pid":1,"workspaceFolders":["`+proj+`"],"ideName":"Visual Studio Code","transport":"ws","authToken":"`+ideToken+`"}`+"\n")
	const key = "sk-ant-test-key-ideconnection-0123456789"
	h.Onboarded(key, proj)
	run := func() (string, *harness.FakeAPI) {
		api := harness.StartScriptedAPI(t, "FAKE-REPLY-ide",
			harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "cat ~/.claude/ide/*.lock; ls -a ~/.claude", "description": "look"}})
		var stdout, stderr bytes.Buffer
		cmd := h.Command(proj, api.Env(key), "claudebox", "--allowedTools", "Bash", "-p", "hello")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stderr.String(), api
	}
	out, api := run()
	if !strings.Contains(out, "/ide inside finds no IDE") {
		t.Errorf("the launch does not say the IDE's connection is not carried in:\n%s", out)
	}
	for id, r := range api.ToolResults() {
		if strings.Contains(r, ideToken) {
			t.Errorf("the IDE's token readable inside (%s): %q", id, r)
		}
	}
	if out, _ := run(); strings.Contains(out, "/ide inside") {
		t.Errorf("the second launch says it again:\n%s", out)
	}
}
