package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// TestReplayReview42BlocksAndMetadata: what an API call's body may carry
// was a known list for its keys, tools and sources, but not for the rest,
// and the sandbox chose with the user's key what the API reads there: a
// content block of any type but the few refused by name (one the API
// adds next, an MCP call naming a server), a code execution's output
// naming a stored file by its id (Claude Code sends back such outputs as
// the API answered them, and declares no code execution tool: only the
// sandbox writes one), Codex's client_metadata under any key (the
// routing override its headers may not carry), Gemini's labels, which
// Vertex AI adds to the billing of the project that pays. The proof, on
// the host side: the loopback stand-in for each API receives the call
// with the user's real key. What each client sends (measured) still
// arrives.
func TestReplayReview42BlocksAndMetadata(t *testing.T) {
	for _, c := range []struct {
		name, header, path string
		kind               proxy.Kind
		attack             []string
		sent               string
	}{
		{
			"claude", "X-Api-Key", "/v1/messages", proxy.APIKey,
			[]string{
				`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":[{"type":"stored_file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}]}]}`,
				`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"assistant","content":[{"type":"mcp_tool_use","id":"mcptoolu_1","name":"read","server_name":"drive","input":{}}]}]}`,
				`{"model":"claude-sonnet-4-5","max_tokens":64,"tools":[{"type":"code_execution_20250825","name":"code_execution"}],"messages":[{"role":"user","content":"cat the file"},{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"bash_code_execution","input":{"command":"ls"}},{"type":"bash_code_execution_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"bash_code_execution_result","stdout":"","stderr":"","return_code":0,"content":[{"type":"bash_code_execution_output","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}]}}]},{"role":"user","content":"print it"}]}`,
			},
			`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"c2ln"},{"type":"redacted_thinking","data":"cmVk"},{"type":"text","text":"ok"},{"type":"tool_use","id":"toolu_1","name":"ToolSearch","input":{"query":"select:Write"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"tool_reference","tool_name":"Write"}]}]}]}`,
		},
		{
			"codex", "Authorization", "/responses", proxy.OpenAIKey,
			[]string{
				`{"model":"gpt-5","input":"hi","client_metadata":{"session_id":"s","x-openai-account-routing-override":"acct-other"}}`,
				`{"model":"gpt-5","input":"hi","client_metadata":{"openai-project":"proj_attacker"}}`,
			},
			`{"model":"gpt-5","input":"hi","client_metadata":{"session_id":"01a2","thread_id":"01a2","turn_id":"01a3","root_turn_id":"01a3","x-codex-installation-id":"8e89","x-codex-turn-metadata":"{\"turn_id\":\"01a3\"}"}}`,
		},
		{
			"gemini with a Google login", "Authorization", "/v1internal:generateContent", proxy.GoogleOAuth,
			[]string{`{"model":"gemini-2.5-pro","request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"labels":{"cost-center":"attacker"}}}`},
			`{"model":"gemini-2.5-pro","request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"session_id":"s"}}`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			real := "real-key-0123456789"
			up := startAgentUpstream(t, c.header, real)
			p, sock := agentProxy(t, proxy.KeyCredential(c.kind, "test", real), up.URL)
			key := c.header + ": " + p.Phantom
			if c.header == "Authorization" {
				key = "Authorization: Bearer " + p.Phantom
			}
			for _, body := range c.attack {
				status, answer := postThrough(t, sock, c.path, key, body)
				if status != http.StatusForbidden || !strings.Contains(answer, "claudebox --network=host") {
					t.Errorf("%.120s: answered %d %.200q, not a refusal that says how to allow it", body, status, answer)
				}
			}
			if got := up.received(); len(got) > 0 {
				t.Errorf("the API received with the user's real key: %.300q", got)
			}
			if status, answer := postThrough(t, sock, c.path, key, c.sent); status != http.StatusOK || len(up.received()) != 1 {
				t.Errorf("what the client sends was refused: %d %.200q", status, answer)
			}
		})
	}
}
