package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeAPI is a minimal Anthropic Messages API on 127.0.0.1, so the real
// Claude Code CLI can be driven without any network. It answers every
// message with reply and keeps every request body, so tests can read
// exactly what Claude sent.
type fakeAPI struct {
	URL   string
	reply string

	mu     sync.Mutex
	bodies []string
}

func startFakeAPI(t *testing.T, reply string) *fakeAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{URL: "http://" + ln.Addr().String(), reply: reply}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

// Env is what points Claude Code at this server with the API key key, and
// keeps it from contacting anything else.
func (f *fakeAPI) Env(key string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + f.URL, "ANTHROPIC_API_KEY=" + key, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
}

// Bodies returns the bodies of the POST /v1/messages requests so far.
func (f *fakeAPI) Bodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// Received reports whether any message request contained s.
func (f *fakeAPI) Received(s string) bool {
	for _, b := range f.Bodies() {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &req)
	writeMessage(w, req.Model, f.reply, req.Stream)
}

// writeMessage answers like the Messages API: a JSON message, or the six SSE
// events of a streamed one.
func writeMessage(w http.ResponseWriter, model, text string, stream bool) {
	usage := map[string]int{"input_tokens": 10, "output_tokens": 5}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]string{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := []struct {
		name string
		data any
	}{
		{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
		}}},
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": text}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
		{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
	for _, e := range events {
		data, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data)
	}
}
