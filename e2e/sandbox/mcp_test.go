package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestMCPServersOnRequest: MCP servers added on the host with claude mcp
// add (local scope, its default, and user scope) reach the real Claude
// Code inside only when named with --with-mcp; those left out are named
// once per project, names only; one whose env holds a token waits for
// approval, and its token is in no message claudebox prints.
func TestMCPServersOnRequest(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "mcp")
	h.GitRepo(proj)
	server := filepath.Join(proj, "mcp.sh")
	h.Write(server, harness.MCPServerScript)
	os.Chmod(server, 0o755)
	const key = "sk-ant-test-key-mcp-0123456789abcdefghij"
	h.Onboarded(key, proj)
	h.Chown()
	const token = "TOKEN-SECRET-77c1"
	h.Run(proj, nil, "claude", "mcp", "add", "localsrv", "--", server)
	h.Run(proj, nil, "claude", "mcp", "add", "-s", "user", "usersrv", "--", server)
	h.Run(proj, nil, "claude", "mcp", "add", "-s", "user", "tokensrv", "-e", "TOKEN="+token, "--", server)

	launch := func(api *harness.FakeAPI, args ...string) (stdout, stderr string, err error) {
		var out, errb bytes.Buffer
		c := h.Command(proj, api.Env(key), "claudebox", append(args, "--allowedTools", "mcp__localsrv__ping,mcp__usersrv__ping,mcp__tokensrv__ping", "-p", "ping")...)
		c.Stdout, c.Stderr = &out, &errb
		err = c.Run()
		return out.String(), errb.String(), err
	}
	calls := func() *harness.FakeAPI {
		return harness.StartScriptedAPI(t, "FAKE-REPLY-mcp-done",
			harness.ToolCall{Name: "mcp__localsrv__ping", Input: map[string]any{}},
			harness.ToolCall{Name: "mcp__usersrv__ping", Input: map[string]any{}})
	}

	t.Run("left-out", func(t *testing.T) {
		api := calls()
		_, stderr, err := launch(api)
		if err != nil {
			t.Fatalf("launch: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "MCP servers left out of the sandbox: localsrv, tokensrv, usersrv") || !strings.Contains(stderr, "--with-mcp") {
			t.Errorf("the launch does not name the servers left out:\n%s", stderr)
		}
		for id, r := range api.ToolResults() {
			if strings.Contains(r, "MCP-PONG") {
				t.Errorf("%s answered though not named: %q", id, r)
			}
		}
		_, stderr, _ = launch(calls())
		if strings.Contains(stderr, "left out") {
			t.Errorf("the second launch names them again:\n%s", stderr)
		}
	})
	t.Run("named", func(t *testing.T) {
		api := calls()
		stdout, stderr, err := launch(api, "--with-mcp", "localsrv", "--with-mcp", "usersrv")
		if err != nil || !strings.Contains(stdout, "FAKE-REPLY-mcp-done") {
			t.Fatalf("launch: %v\n%s\n%s", err, stdout, stderr)
		}
		results := api.ToolResults()
		for _, id := range []string{"toolu_fake_0", "toolu_fake_1"} {
			if !strings.Contains(results[id], "MCP-PONG-") {
				t.Errorf("%s: tool result %q, want the server's answer", id, results[id])
			}
		}
	})
	t.Run("token-waits-for-approval", func(t *testing.T) {
		api := harness.StartScriptedAPI(t, "FAKE-REPLY-mcp-done", harness.ToolCall{Name: "mcp__tokensrv__ping", Input: map[string]any{}})
		_, stderr, err := launch(api, "--with-mcp", "tokensrv")
		if err == nil || !strings.Contains(stderr, "MCP server tokensrv") || len(api.Bodies()) > 0 {
			t.Fatalf("a definition with a token started without approval: %v\n%s", err, stderr)
		}
		stdout, stderr, err := launch(api, "--with-mcp", "tokensrv", "--yes")
		if err != nil || !strings.Contains(api.ToolResults()["toolu_fake_0"], "MCP-PONG-"+token) {
			t.Fatalf("approved, the server does not answer: %v %q\n%s\n%s", err, api.ToolResults(), stdout, stderr)
		}
		if strings.Contains(stderr, token) {
			t.Errorf("claudebox printed the token:\n%s", stderr)
		}
	})
}
