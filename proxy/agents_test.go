package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxyAgentKeys: another agent's phantom, in the header its API takes
// the key in, becomes the real key there; every other credential header
// the sandbox sent is dropped; its API's other calls, and Claude's, are
// refused before the upstream.
func TestProxyAgentKeys(t *testing.T) {
	for _, c := range []struct {
		kind          Kind
		header        string
		bearer        bool
		allowed, deny []string
	}{
		{OpenAIKey, "Authorization", true, []string{"/responses"}, []string{"/files", "/v1/messages", "/responses/../files", "/chat/completions"}},
		{
			GeminiKey, "X-Goog-Api-Key", false,
			[]string{"/v1beta/models/gemini-x:generateContent", "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"},
			[]string{"/v1beta/files", "/v1beta/models/gemini-x:batchGenerateContent", "/v1beta/models/../files:generateContent", "/v1beta/cachedContents", "/v1/messages"},
		},
	} {
		const real = "real-agent-key"
		rec := &upstreamRecorder{}
		up := startUpstream(t, func(h http.Header) bool {
			v := h.Get(c.header)
			return v == real || v == "Bearer "+real
		}, rec, nil)
		p, err := startLoopback(KeyCredential(c.kind, "TEST", real), up.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		phantom := p.Phantom
		if c.bearer {
			phantom = "Bearer " + phantom
		}
		for _, path := range c.allowed {
			resp, body := post(t, p.URL+path, map[string]string{c.header: phantom, "X-Api-Key": "other", "Authorization-Extra": "x"})
			if resp.StatusCode != 200 || !strings.Contains(body, "message_stop") {
				t.Errorf("%v %s: %s %s", c.kind, path, resp.Status, body)
			}
		}
		for _, h := range rec.headers {
			if h.Get("X-Api-Key") != "" || (c.kind == GeminiKey && h.Get("Authorization") != "") {
				t.Errorf("%v: the upstream got another credential header: %v", c.kind, h)
			}
		}
		n := len(rec.paths)
		for _, path := range c.deny {
			if resp, _ := post(t, p.URL+path, map[string]string{c.header: phantom}); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%v %s: %s, want 403", c.kind, path, resp.Status)
			}
		}
		// The phantom in the other header, or the real key, is no phantom.
		for _, h := range []map[string]string{{"X-Api-Key": p.Phantom}, {c.header: real}, {c.header: "Bearer " + real}} {
			if resp, _ := post(t, p.URL+c.allowed[0], h); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%v %v: %s, want 401", c.kind, h, resp.Status)
			}
		}
		if len(rec.paths) != n {
			t.Errorf("%v: refused requests reached the upstream: %v", c.kind, rec.paths[n:])
		}
		if v, _ := agentVariable(c.kind); c.kind.Variable() != v || strings.Contains(p.Phantom, real) {
			t.Errorf("%v: variable %s, phantom %s", c.kind, c.kind.Variable(), p.Phantom)
		}
	}
	if agentAllowed(GeminiKey, httptest.NewRequest("GET", "/v1beta/models", nil)) != true {
		t.Error("Gemini's model list is refused")
	}
}
