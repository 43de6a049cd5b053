package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudebox/claudebox/proxy"
)

// FakeChatGPT is the ChatGPT backend (its codex/responses) and OpenAI's
// token endpoint (/oauth/token). Each backend call records the bearer and
// the account it got, and what the sandbox's processes hold at that time.
type FakeChatGPT struct {
	URL string
	// refreshOK says the token endpoint answers with newAccess.
	refreshOK bool
	newAccess string
	// toolCall, when set, is the input of an exec tool call the first
	// model call answers with; answer is the text of the reply.
	ToolCall string
	Answer   string

	Mu        sync.Mutex
	Bearers   []string
	Accounts  []string
	Refreshes []map[string]string
	Bodies    []string
	Inside    []SandboxView
	look      func() []SandboxView
}

func StartFakeChatGPT(t *testing.T, refreshOK bool, newAccess string, look func() []SandboxView) *FakeChatGPT {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeChatGPT{URL: "http://" + ln.Addr().String(), refreshOK: refreshOK, newAccess: newAccess, look: look, Answer: "PONG-CHATGPT"}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *FakeChatGPT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.Mu.Lock()
	defer f.Mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/oauth/token":
		var req map[string]string
		json.Unmarshal(body, &req)
		f.Refreshes = append(f.Refreshes, req)
		if !f.refreshOK {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"access_token": f.newAccess, "refresh_token": "real-refresh-rotated", "id_token": chatGPTIDToken()})
	case strings.HasPrefix(r.URL.Path, "/backend-api/codex/"):
		f.Bearers = append(f.Bearers, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		f.Accounts = append(f.Accounts, r.Header.Get("Chatgpt-Account-Id"))
		f.Bodies = append(f.Bodies, string(body))
		f.Inside = append(f.Inside, f.look()...)
		if r.URL.Path != "/backend-api/codex/responses" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		item := map[string]any{
			"type": "message", "role": "assistant", "id": "msg_1",
			"content": []any{map[string]any{"type": "output_text", "text": f.Answer}},
		}
		if f.ToolCall != "" {
			item = map[string]any{"type": "custom_tool_call", "name": "exec", "input": f.ToolCall, "call_id": "call_1", "id": "ctc_1", "status": "completed"}
			f.ToolCall = ""
		}
		for _, ev := range []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
			{"type": "response.output_item.done", "item": item},
			{"type": "response.completed", "response": map[string]any{"id": "resp_1", "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	default:
		http.NotFound(w, r)
	}
}

// chatGPTIDToken is an id token of the shape OpenAI's login gives.
func chatGPTIDToken() string {
	return proxy.UnsignedJWT(map[string]any{
		"email": "user@example.com", "exp": time.Now().Add(time.Hour).Unix(),
		"https://api.openai.com/auth": map[string]any{"chatgpt_account_id": "acct-real-42", "chatgpt_plan_type": "plus"},
	})
}

// WriteChatGPTLogin writes the host's ChatGPT login, with keys claudebox
// does not know, which a refresh must keep.
func WriteChatGPTLogin(h *Host, access string) string {
	path := filepath.Join(h.Home, ".codex", "auth.json")
	b, _ := json.MarshalIndent(map[string]any{
		"auth_mode": "chatgpt", "OPENAI_API_KEY": nil, "unknown_top": "kept",
		"tokens": map[string]any{
			"id_token": chatGPTIDToken(), "access_token": access, "refresh_token": "real-refresh-original",
			"account_id": "acct-real-42", "unknown_token_key": "kept too",
		},
		"last_refresh": "2020-01-01T00:00:00Z",
	}, "", "  ")
	h.Write(path, string(b))
	os.Chmod(path, 0o600)
	return path
}

// The host-only variables that replace the ChatGPT backend and the token
// endpoint (session/agents.go).
const (
	ChatGPTURLVar    = "CLAUDEBOX_CHATGPT_URL"
	CodexTokenURLVar = "CLAUDEBOX_OAUTH_TOKEN_URL"
)
