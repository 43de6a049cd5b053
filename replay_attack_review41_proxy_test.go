package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// headerUpstream is a loopback stand-in for an agent's API that records
// the headers of each request that carries the user's real key.
type headerUpstream struct {
	*httptest.Server
	mu  sync.Mutex
	got []http.Header
}

func startHeaderUpstream(t *testing.T, header, real string) *headerUpstream {
	u := &headerUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if strings.TrimPrefix(r.Header.Get(header), "Bearer ") == real {
			u.mu.Lock()
			u.got = append(u.got, r.Header.Clone())
			u.mu.Unlock()
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *headerUpstream) received() []http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]http.Header(nil), u.got...)
}

// TestReplayReview41HeadersChooseWhoPays: the body of an API call is
// checked against what is known harmless, but its headers passed as the
// sandbox wrote them, and with the user's credential a header chooses
// what the body cannot: the workspace or organization billed and logging
// the call (anthropic-workspace-id, x-organization-uuid, OpenAI's
// OpenAI-Organization and OpenAI-Project, Codex's account routing
// override), the Google Cloud project charged for it and holding its
// logs (X-Goog-User-Project: a project whose owner granted the user's
// account access), a version of the Messages API under which the body's
// fields mean what the check does not know. The proof, on the host side:
// the loopback stand-in for each API receives the header with the user's
// real key. What each agent's client sends (measured) still arrives.
func TestReplayReview41HeadersChooseWhoPays(t *testing.T) {
	for _, c := range []struct {
		name, header, path, body string
		kind                     proxy.Kind
		attack, sent             []string
	}{
		{
			"claude", "X-Api-Key", "/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`, proxy.APIKey,
			[]string{"Anthropic-Workspace-Id: wrkspc_attacker", "X-Organization-Uuid: 6f1c0e2a-0000-4000-8000-000000000001", "Anthropic-Version: 2099-01-01", "Anthropic-User-Profile-Id: up_other", "anthropic_workspace_id: wrkspc_attacker"},
			[]string{"Anthropic-Version: 2023-06-01", "Anthropic-Dangerous-Direct-Browser-Access: true", "X-App: cli", "X-Claude-Code-Session-Id: 8574ea80-ad23-4bee-bcd6-c477fc008b98", "X-Stainless-Os: Linux", "X-Stainless-Retry-Count: 0", "User-Agent: claude-cli/2.1.330 (external, sdk-cli)", "Anthropic-Beta: claude-code-20250219"},
		},
		{
			"codex", "Authorization", "/responses", `{"model":"gpt-5","input":"hi"}`, proxy.OpenAIKey,
			[]string{"OpenAI-Organization: org-attacker", "OpenAI-Project: proj_attacker", "X-Openai-Account-Routing-Override: acct-other"},
			[]string{"Originator: codex_exec", "Session-Id: 01a234ea", "Thread-Id: 01a234ea", "X-Client-Request-Id: 01a234ea", "X-Codex-Beta-Features: remote_compaction_v2", "X-Codex-Turn-Metadata: {}", "X-Codex-Window-Id: 01a234ea:0", "X-Openai-Internal-Codex-Responses-Lite: true"},
		},
		{
			"gemini", "X-Goog-Api-Key", "/v1beta/models/gemini-2.5-pro:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, proxy.GeminiKey,
			[]string{"X-Goog-User-Project: attacker-project", "X_Goog_User_Project: attacker-project"},
			[]string{"X-Goog-Api-Client: google-genai-sdk/1.30.0 gl-node/v20.20.2", "X-Gemini-Api-Privileged-User-Id: 8e896abe", "Accept-Language: *", "Sec-Fetch-Mode: cors"},
		},
		{
			"gemini with a Google login", "Authorization", "/v1internal:generateContent", `{"model":"gemini-2.5-pro","project":"p","request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}}`, proxy.GoogleOAuth,
			[]string{"X-Goog-User-Project: attacker-project"},
			[]string{"X-Goog-Api-Client: gl-node/20.20.2"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			real := "real-key-0123456789"
			up := startHeaderUpstream(t, c.header, real)
			p, sock := agentProxy(t, proxy.KeyCredential(c.kind, "test", real), up.URL)
			key := c.header + ": " + p.Phantom
			if c.header == "Authorization" {
				key = "Authorization: Bearer " + p.Phantom
			}
			for _, h := range c.attack {
				postThrough(t, sock, c.path, key+"\r\n"+h, c.body)
			}
			for _, got := range up.received() {
				for _, h := range c.attack {
					name, _, _ := strings.Cut(h, ":")
					if v := got.Values(name); len(v) > 0 && v[0] != "2023-06-01" {
						t.Errorf("the API received with the user's real key %s: %q", name, v)
					}
				}
			}
			before := len(up.received())
			if status, answer := postThrough(t, sock, c.path, key+"\r\n"+strings.Join(c.sent, "\r\n"), c.body); status != http.StatusOK {
				t.Fatalf("what the client sends was refused: %d %.200q", status, answer)
			}
			got := up.received()
			if len(got) != before+1 {
				t.Fatalf("what the client sends did not reach the API")
			}
			for _, h := range c.sent {
				name, value, _ := strings.Cut(h, ":")
				if v := got[before].Get(name); v != strings.TrimSpace(value) {
					t.Errorf("%s: the API received %q, not what the client sent", name, v)
				}
			}
		})
	}
}
