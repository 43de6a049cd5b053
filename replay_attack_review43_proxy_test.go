package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// TestReplayReview43RefusedBlockNamesWayOut: a turn refused for a block
// the API had answered (a type claudebox does not know yet) is refused
// again at every later turn, which sends the conversation again, and
// Claude Code 2.1.330 under tmux showed "Please run /login · API Error:
// 403 claudebox: …" at each, and sent each turn twice: a user who logged
// in again was refused as before. The refusal of what a conversation
// holds now carries the code a gateway gives it (dlp_request_denied),
// on which the same Claude Code shows "API Error: 403 claudebox: …" once a
// turn, sends it once, and says the way on ("run /rewind … or run /clear
// to start over"). What no /rewind or /clear removes, a tool of the
// request's own, is refused as before.
func TestReplayReview43RefusedBlockNamesWayOut(t *testing.T) {
	real := "real-key-0123456789"
	up := startAgentUpstream(t, "X-Api-Key", real)
	p, sock := agentProxy(t, proxy.KeyCredential(proxy.APIKey, "test", real), up.URL)
	for body, wayOut := range map[string]bool{
		`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"future_block","data":"x"}]},{"role":"user","content":"go on"}]}`: true,
		`{"model":"claude-sonnet-4-5","max_tokens":64,"system":[{"type":"text","text":"s"},{"type":"file","file_id":"file_011"}],"messages":[{"role":"user","content":"hi"}]}`:                                                        true,
		`{"model":"claude-sonnet-4-5","max_tokens":64,"tools":[{"type":"mcp_toolset_20251120","mcp_server_name":"drive"}],"messages":[{"role":"user","content":"hi"}]}`:                                                               false,
	} {
		status, answer := postThrough(t, sock, "/v1/messages", "X-Api-Key: "+p.Phantom, body)
		var refused struct {
			Error struct {
				Type    string
				Details struct {
					ErrorCode string `json:"error_code"`
				}
			}
		}
		if err := json.Unmarshal([]byte(answer), &refused); err != nil || status != http.StatusForbidden || refused.Error.Type != "permission_error" {
			t.Fatalf("%.80s: answered %d %.200q, not a refusal", body, status, answer)
		}
		if got := refused.Error.Details.ErrorCode == "dlp_request_denied"; got != wayOut {
			t.Errorf("%.100s: answered %.300q; want the code on which Claude Code names /rewind and /clear: %v", body, answer, wayOut)
		}
	}
	if got := up.received(); len(got) > 0 {
		t.Errorf("the API received with the user's real key: %.300q", got)
	}
}
