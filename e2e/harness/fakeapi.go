package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// FakeAPI is a minimal Anthropic Messages API on 127.0.0.1, so the real
// Claude Code CLI can be driven without any network. It answers every
// message with reply, or first with the tool calls of its script, and keeps
// every request body, so tests can read exactly what Claude sent.
type FakeAPI struct {
	URL    string
	reply  string
	Script []ToolCall

	// auth, when set, is the only credential the fake accepts: as the real
	// API, it answers anything else with an authentication error.
	Auth func(http.Header) bool

	mu      sync.Mutex
	bodies  []string
	headers []http.Header
}

// ToolCall is one scripted assistant turn: a single tool_use block.
type ToolCall struct {
	Name  string
	Input map[string]any
}

func StartFakeAPI(t testing.TB, reply string) *FakeAPI {
	t.Helper()
	return StartScriptedAPI(t, reply)
}

// StartScriptedAPI answers a request that offers tools with the script's
// next call, picked by how many tool results the conversation already
// holds, so each result Claude sends back advances it one step; after the
// last step, and to any request without tools, it answers reply. Where
// the request asks for auto mode's check (its safeguards), the call comes
// with the check's verdict that it is safe, as the API's does: auto mode,
// Claude Code's default, then runs it unasked.
func StartScriptedAPI(t testing.TB, reply string, script ...ToolCall) *FakeAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeAPI{URL: "http://" + ln.Addr().String(), reply: reply, Script: script}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

// Env is what points Claude Code at this server with the API key key, and
// keeps it from contacting anything else.
func (f *FakeAPI) Env(key string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + f.URL, "ANTHROPIC_API_KEY=" + key, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
}

// Bodies returns the bodies of the POST /v1/messages requests so far.
func (f *FakeAPI) Bodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// Headers returns the headers of every POST /v1/messages request so far,
// refused ones included.
func (f *FakeAPI) Headers() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]http.Header(nil), f.headers...)
}

// Received reports whether any message request contained s.
func (f *FakeAPI) Received(s string) bool {
	for _, b := range f.Bodies() {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// messagesRequest is what the fake reads of a request.
type messagesRequest struct {
	Model      string            `json:"model"`
	Stream     bool              `json:"stream"`
	Tools      []json.RawMessage `json:"tools"`
	Safeguards []struct {
		Type string `json:"type"`
	} `json:"safeguards"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// toolResult is a tool_result block Claude sent back.
type toolResult struct {
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// results lists the request's tool_result blocks, oldest first. A message's
// content is a string or a list of blocks.
func (r messagesRequest) results() []toolResult {
	var rs []toolResult
	for _, m := range r.Messages {
		var blocks []struct {
			Type string `json:"type"`
			toolResult
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				rs = append(rs, b.toolResult)
			}
		}
	}
	return rs
}

// ToolResults returns, by tool_use id ("toolu_fake_<step>"), what Claude
// sent back for each scripted call, as the text of its content, with
// "ERROR: " before it when Claude marked it an error.
func (f *FakeAPI) ToolResults() map[string]string {
	out := map[string]string{}
	for _, b := range f.Bodies() {
		var req messagesRequest
		json.Unmarshal([]byte(b), &req)
		for _, r := range req.results() {
			text := string(r.Content)
			var s string
			var blocks []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(r.Content, &s) == nil {
				text = s
			} else if json.Unmarshal(r.Content, &blocks) == nil {
				var parts []string
				for _, bl := range blocks {
					parts = append(parts, bl.Text)
				}
				text = strings.Join(parts, "\n")
			}
			if r.IsError {
				text = "ERROR: " + text
			}
			out[r.ToolUseID] = text
		}
	}
	return out
}

func (f *FakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	if f.Auth != nil && !f.Auth(r.Header) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid credential"}}`)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var req messagesRequest
	json.Unmarshal(body, &req)
	if step := len(req.results()); len(req.Tools) > 0 && step < len(f.Script) {
		writeToolUse(w, req.Model, fmt.Sprintf("toolu_fake_%d", step), f.Script[step], req.Stream, req.checksToolUse())
		return
	}
	writeMessage(w, req.Model, f.reply, req.Stream)
}

// checksToolUse says the request asks the API to check each tool call
// (Claude Code's auto mode).
func (r messagesRequest) checksToolUse() bool {
	for _, s := range r.Safeguards {
		if s.Type == "dangerous_tool_use" {
			return true
		}
	}
	return false
}

type sseEvent struct {
	name string
	data any
}

func writeEvents(w http.ResponseWriter, events []sseEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		data, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, data)
	}
}

var fakeUsage = map[string]int{"input_tokens": 10, "output_tokens": 5}

func messageStart(model string) sseEvent {
	return sseEvent{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": fakeUsage,
	}}}
}

func messageEnd(stopReason string, delta map[string]any) []sseEvent {
	d := map[string]any{"stop_reason": stopReason, "stop_sequence": nil}
	for k, v := range delta {
		d[k] = v
	}
	return []sseEvent{
		{"message_delta", map[string]any{"type": "message_delta", "delta": d, "usage": map[string]int{"output_tokens": 5}}},
		{"message_stop", map[string]any{"type": "message_stop"}},
	}
}

// writeMessage answers like the Messages API: a JSON message, or the six SSE
// events of a streamed one.
func writeMessage(w http.ResponseWriter, model, text string, stream bool) {
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]string{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil, "usage": fakeUsage,
		})
		return
	}
	writeEvents(w, append([]sseEvent{
		messageStart(model),
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}}},
		{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": text}}},
		{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
	}, messageEnd("end_turn", nil)...))
}

// writeToolUse answers with one tool_use block. Streamed, as the API does:
// the block starts with an empty input, which arrives as input_json_delta
// fragments (here split in two, so Claude must join them); checked, the
// message's end carries the verdict of auto mode's check on it (measured
// from what Claude Code 2.1.330 reads: not flagged).
func writeToolUse(w http.ResponseWriter, model, id string, call ToolCall, stream, checked bool) {
	input, _ := json.Marshal(call.Input)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": json.RawMessage(input)}},
			"stop_reason": "tool_use", "stop_sequence": nil, "usage": fakeUsage,
		})
		return
	}
	events := []sseEvent{
		messageStart(model),
		{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": map[string]any{}}}},
	}
	half := len(input) / 2
	for half > 0 && !utf8.RuneStart(input[half]) {
		half--
	}
	for _, part := range []string{string(input[:half]), string(input[half:])} {
		events = append(events, sseEvent{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "input_json_delta", "partial_json": part}}})
	}
	events = append(events, sseEvent{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}})
	var verdict map[string]any
	if checked {
		verdict = map[string]any{"safeguard_results": []any{map[string]any{
			"type":   "dangerous_tool_use",
			"status": map[string]any{"type": "available", "tool_uses": map[string]any{id: map[string]string{"type": "evaluated", "outcome": "not_flagged"}}},
		}}}
	}
	writeEvents(w, append(events, messageEnd("tool_use", verdict)...))
}

// LoginJSON is a credentials file as Claude Code writes it, with a key
// claudebox does not know.
func LoginJSON(access, refresh string, expires time.Time) string {
	return fmt.Sprintf(`{"claudeAiOauth":{"accessToken":%q,"refreshToken":%q,"expiresAt":%d,"scopes":["user:inference","user:profile"],"subscriptionType":"max"},"mcpOAuth":{"keep":"me"}}`,
		access, refresh, expires.UnixMilli())
}
