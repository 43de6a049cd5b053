package harness

import (
	"bytes"
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
)

// FakeAgentAPI is an agent's API on 127.0.0.1. At each call, while the
// agent waits for the reply, it looks at the sandbox's processes from the
// host: their environment and the agent's configuration directory as they
// see it.
type FakeAgentAPI struct {
	URL string
	// header is where the agent's key arrives.
	header string

	mu     sync.Mutex
	keys   []string
	bodies []string
	// inside records what was found in the sandbox's processes.
	inside []SandboxView
	look   func() []SandboxView
}

// SandboxView is one sandboxed process as the host sees it.
type SandboxView struct {
	Pid     string
	Environ string
	Files   map[string]string // path inside: content
}

func StartAgentAPI(t *testing.T, header string, look func() []SandboxView) *FakeAgentAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &FakeAgentAPI{URL: "http://" + ln.Addr().String(), header: header, look: look}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *FakeAgentAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.keys = append(f.keys, strings.TrimPrefix(r.Header.Get(f.header), "Bearer "))
	f.bodies = append(f.bodies, string(body))
	f.inside = append(f.inside, f.look()...)
	f.mu.Unlock()
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v1/responses":
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
			{"type": "response.output_item.done", "item": map[string]any{
				"type": "message", "role": "assistant", "id": "msg_1",
				"content": []any{map[string]any{"type": "output_text", "text": "PONG-CODEX"}},
			}},
			{"type": "response.completed", "response": map[string]any{"id": "resp_1", "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/v1beta/models/"):
		// The non-streamed call is Gemini's model router, which wants its
		// JSON; the streamed one is the answer.
		text := `{"complexity_reasoning":"x","complexity_score":10}`
		if strings.HasSuffix(p, ":streamGenerateContent") {
			text = "PONG-GEMINI"
		}
		b, _ := json.Marshal(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		})
		if strings.HasSuffix(p, ":streamGenerateContent") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	default:
		http.NotFound(w, r)
	}
}

// Keys are the credentials the upstream received.
func (f *FakeAgentAPI) Keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...)
}

// Received says whether any request's body held s.
func (f *FakeAgentAPI) Received(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bodies {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// Inside is what the fake saw of the sandbox during its calls.
func (f *FakeAgentAPI) Inside() []SandboxView {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]SandboxView(nil), f.inside...)
}

// LookInside reads, from the host, every process of this test's sandbox
// (in another PID namespace than the test's, with mark in its
// environment: other sandboxes may run on the machine): its environment,
// and the files of dir as it sees them (through /proc/PID/root).
func LookInside(dir, mark string) func() []SandboxView {
	self, _ := os.Readlink("/proc/self/ns/pid")
	return func() []SandboxView {
		var views []SandboxView
		pids, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range pids {
			if ns, err := os.Readlink(p + "/ns/pid"); err != nil || ns == self {
				continue
			}
			env, err := os.ReadFile(p + "/environ")
			if err != nil || !bytes.Contains(env, []byte(mark)) {
				continue
			}
			v := SandboxView{Pid: filepath.Base(p), Environ: string(bytes.ReplaceAll(env, []byte{0}, []byte{'\n'})), Files: map[string]string{}}
			root := p + "/root"
			filepath.Walk(root+dir, func(path string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
					b, _ := os.ReadFile(path)
					v.Files[strings.TrimPrefix(path, root)] = string(b)
				}
				return nil
			})
			views = append(views, v)
		}
		return views
	}
}

// RequireAgent finds an agent CLI, which CI installs from npm.
func RequireAgent(t *testing.T, name, pkg string) {
	RequireTool(t, name, "npm install -g "+pkg)
}

// TestMark is a variable, NAME=VALUE, that marks this test's sandbox.
func TestMark(t *testing.T) string {
	return fmt.Sprintf("AGENT_TEST_MARK=%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// NoResolve keeps the filtered network from resolving any real name.
var NoResolve = "CLAUDEBOX_RESOLVE=unused.test=127.0.0.9"
