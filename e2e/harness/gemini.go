package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// FakeCodeAssist is the Code Assist API as Gemini CLI 0.61.0 uses it
// (measured): loadCodeAssist names a project, the router's
// generateContent wants its JSON, streamGenerateContent answers; the
// other calls at start (quota, experiments) get {}. Each response is
// wrapped in "response", as Code Assist does. Like fakeAgentAPI, it looks
// at the sandbox at each call.
type FakeCodeAssist struct {
	URL  string
	Mu   sync.Mutex
	auth []string
	// prompt is the last model call's request.
	Prompt string
	// inside records what was found in the sandbox's processes.
	Inside []SandboxView
	look   func() []SandboxView
}

func StartCodeAssist(t *testing.T, look func() []SandboxView) *FakeCodeAssist {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeCodeAssist{URL: "http://" + ln.Addr().String(), look: look}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *FakeCodeAssist) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.Mu.Lock()
	if r.URL.Path == "/v1internal:streamGenerateContent" {
		f.Prompt = string(body)
	}
	f.auth = append(f.auth, r.URL.Path+" "+r.Header.Get("Authorization"))
	f.Inside = append(f.Inside, f.look()...)
	f.Mu.Unlock()
	answer := func(text string) map[string]any {
		return map[string]any{"traceId": "t", "response": map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		}}
	}
	var reply any = map[string]any{}
	switch r.URL.Path {
	case "/v1internal:loadCodeAssist":
		reply = map[string]any{"currentTier": map[string]any{"id": "standard-tier"}, "cloudaicompanionProject": "fake-project"}
	case "/v1internal:generateContent":
		reply = answer(`{"complexity_reasoning":"x","complexity_score":10}`)
	case "/v1internal:streamGenerateContent":
		b, _ := json.Marshal(answer("PONG-GOOGLE"))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}

// Auth is each call's path and Authorization header.
func (f *FakeCodeAssist) Auth() []string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]string(nil), f.auth...)
}
