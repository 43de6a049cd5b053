package main

import (
	"compress/gzip"
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
			"gemini with a Google login", "Authorization", "/v1internal:generateContent", `{"model":"gemini-2.5-pro","request":{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}}`, proxy.GoogleOAuth,
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

// TestReplayReview41GoogleProjectPinned: Gemini CLI's Google login calls
// Code Assist, whose calls name the Google Cloud project they are billed
// to and logged in (project, cloudaicompanionProject, metadata's
// duetProject), and the proxy passed any: with the user's login, a
// project whose owner granted the user's account access (as any owner
// may) would keep in its logs what the session sends, for that owner to
// read. The proof, on the host side: the loopback stand-in for Code
// Assist receives, with the user's real token, a model call and a setup
// naming the attacker's project. What passes: the project the host names
// (GOOGLE_CLOUD_PROJECT), a setup naming none, and the project Google's
// answer to it gives the login (here gzipped, as Google's are).
func TestReplayReview41GoogleProjectPinned(t *testing.T) {
	real := "ya29.real-google-access"
	var mu sync.Mutex
	var got []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("Authorization") != "Bearer "+real {
			return
		}
		mu.Lock()
		got = append(got, r.URL.Path+" "+string(b))
		mu.Unlock()
		answer := `{}`
		if r.URL.Path == "/v1internal:loadCodeAssist" {
			answer = `{"currentTier":{"id":"free-tier"},"cloudaicompanionProject":"users-free-project"}`
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			z := gzip.NewWriter(w)
			io.WriteString(z, answer)
			z.Close()
			return
		}
		io.WriteString(w, answer)
	}))
	t.Cleanup(up.Close)
	received := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
	p, sock := agentProxy(t, proxy.KeyCredential(proxy.GoogleOAuth, "test", real), up.URL)
	p.PinGoogleProject("hosts-project")
	key := "Authorization: Bearer " + p.Phantom + "\r\nAccept-Encoding: gzip, deflate, br"
	model := func(project string) string {
		return `{"model":"gemini-2.5-pro","project":"` + project + `","user_prompt_id":"u","request":{"contents":[{"role":"user","parts":[{"text":"the project's secrets"}]}]}}`
	}
	for _, c := range []struct{ path, body string }{
		{"/v1internal:streamGenerateContent", model("attackers-project")},
		{"/v1internal:generateContent", `{"model":"gemini-2.5-pro","request":{"contents":[]},"Project":"attackers-project"}`},
		{"/v1internal:loadCodeAssist", `{"cloudaicompanionProject":"attackers-project","metadata":{"pluginType":"GEMINI"}}`},
		{"/v1internal:listExperiments", `{"metadata":{"duetProject":"attackers-project","pluginType":"GEMINI"}}`},
		{"/v1internal:retrieveUserQuota", `{"project":["attackers-project"]}`},
	} {
		if status, answer := postThrough(t, sock, c.path, key, c.body); status != http.StatusForbidden || !strings.Contains(answer, "claudebox: this request is refused") {
			t.Errorf("%s %s: answered %d %.200q, not a refusal", c.path, c.body, status, answer)
		}
	}
	if g := received(); len(g) > 0 {
		t.Errorf("Code Assist received with the user's real token calls naming a project neither the host nor Google chose: %.300q", g)
	}
	for _, c := range []struct{ path, body string }{
		{"/v1internal:streamGenerateContent", model("hosts-project")},
		{"/v1internal:loadCodeAssist", `{"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}`},
		{"/v1internal:streamGenerateContent", model("users-free-project")},
		{"/v1internal:listExperiments", `{"project":"users-free-project","metadata":{"duetProject":"users-free-project","pluginType":"GEMINI"}}`},
	} {
		if status, answer := postThrough(t, sock, c.path, key, c.body); status != http.StatusOK {
			t.Errorf("%s %s: answered %d %.200q, want it passed", c.path, c.body, status, answer)
		}
	}
}
