package e2e

// The real Codex and Gemini CLIs in the real sandbox, as an unprivileged
// user, against fake upstreams on 127.0.0.1: the smallest each accepts (a
// Responses API stream for Codex; generateContent and
// streamGenerateContent for Gemini). Nothing reaches any other address:
// the base URLs are the fakes, the filtered network resolves no name
// (CLAUDEBOX_RESOLVE names only an unused one), and their telemetry and
// update checks are off.

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

// fakeAgentAPI is an agent's API on 127.0.0.1. At each call, while the
// agent waits for the reply, it looks at the sandbox's processes from the
// host: their environment and the agent's configuration directory as they
// see it.
type fakeAgentAPI struct {
	URL string
	// header is where the agent's key arrives.
	header string

	mu   sync.Mutex
	keys []string
	// inside records what was found in the sandbox's processes.
	inside []sandboxView
	look   func() []sandboxView
}

// sandboxView is one sandboxed process as the host sees it.
type sandboxView struct {
	pid     string
	environ string
	files   map[string]string // path inside: content
}

func startAgentAPI(t *testing.T, header string, look func() []sandboxView) *fakeAgentAPI {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAgentAPI{URL: "http://" + ln.Addr().String(), header: header, look: look}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeAgentAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	f.keys = append(f.keys, strings.TrimPrefix(r.Header.Get(f.header), "Bearer "))
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
func (f *fakeAgentAPI) Keys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...)
}

// Inside is what the fake saw of the sandbox during its calls.
func (f *fakeAgentAPI) Inside() []sandboxView {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sandboxView(nil), f.inside...)
}

// lookInside reads, from the host, every process of this test's sandbox
// (in another PID namespace than the test's, with mark in its
// environment: other sandboxes may run on the machine): its environment,
// and the files of dir as it sees them (through /proc/PID/root).
func lookInside(dir, mark string) func() []sandboxView {
	self, _ := os.Readlink("/proc/self/ns/pid")
	return func() []sandboxView {
		var views []sandboxView
		pids, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range pids {
			if ns, err := os.Readlink(p + "/ns/pid"); err != nil || ns == self {
				continue
			}
			env, err := os.ReadFile(p + "/environ")
			if err != nil || !bytes.Contains(env, []byte(mark)) {
				continue
			}
			v := sandboxView{pid: filepath.Base(p), environ: string(bytes.ReplaceAll(env, []byte{0}, []byte{'\n'})), files: map[string]string{}}
			root := p + "/root"
			filepath.Walk(root+dir, func(path string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
					b, _ := os.ReadFile(path)
					v.files[strings.TrimPrefix(path, root)] = string(b)
				}
				return nil
			})
			views = append(views, v)
		}
		return views
	}
}

// requireAgent finds an agent CLI, which CI installs from npm.
func requireAgent(t *testing.T, name, pkg string) {
	requireTool(t, name, "npm install -g "+pkg)
}

// checkKeptOut checks that the upstream got the real key on every call,
// and that no sandboxed process held it, in its environment or its view
// of the agent's configuration directory, while one held the phantom.
func checkKeptOut(t *testing.T, f *fakeAgentAPI, real, variable string) {
	t.Helper()
	keys := f.Keys()
	if len(keys) == 0 {
		t.Fatal("the upstream got no call")
	}
	for _, k := range keys {
		if k != real {
			t.Errorf("the upstream got %q, not the real key", k)
		}
	}
	phantom := false
	for _, v := range f.Inside() {
		if strings.Contains(v.environ, real) {
			t.Errorf("sandboxed process %s holds the real key in its environment", v.pid)
		}
		for path, content := range v.files {
			if strings.Contains(content, real) {
				t.Errorf("sandboxed process %s sees the real key in %s", v.pid, path)
			}
		}
		phantom = phantom || strings.Contains(v.environ, "\n"+variable+"=") || strings.HasPrefix(v.environ, variable+"=")
	}
	if !phantom {
		t.Errorf("no sandboxed process was seen with %s: the look inside found nothing", variable)
	}
}

// instanceFiles lists the files of the project's instance under sub.
func instanceFiles(t *testing.T, h *e2eHost, sub string) []string {
	t.Helper()
	var files []string
	dirs, _ := filepath.Glob(filepath.Join(h.home, ".claudebox", "projects", "*", sub))
	for _, d := range dirs {
		filepath.Walk(d, func(path string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				files = append(files, path)
			}
			return nil
		})
	}
	return files
}

// testMark is a variable, NAME=VALUE, that marks this test's sandbox.
func testMark(t *testing.T) string {
	return fmt.Sprintf("AGENT_TEST_MARK=%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// noResolve keeps the filtered network from resolving any real name.
var noResolve = "CLAUDEBOX_RESOLVE=unused.test=127.0.0.9"

// TestAgentCodex: codex exec answers through the proxy; the upstream sees
// the user's real key (from ~/.codex/auth.json), the sandbox only a
// phantom, and neither auth.json nor the host's other sessions; the
// session's rollout lands in the instance.
func TestAgentCodex(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	real := "sk-real-codex-key-0123456789"
	h.write(filepath.Join(h.home, ".codex", "auth.json"), `{"OPENAI_API_KEY":"`+real+`"}`+"\n")
	h.write(filepath.Join(h.home, ".codex", "config.toml"), "model = \"gpt-test\"\n")
	h.write(filepath.Join(h.home, ".codex", "sessions", "2020", "other-project.jsonl"), "another project's session\n")
	mark := testMark(t)
	f := startAgentAPI(t, "Authorization", lookInside(filepath.Join(h.home, ".codex"), mark))
	out := h.run(proj, []string{"OPENAI_BASE_URL=" + f.URL + "/v1", noResolve}, "claudebox", "--env", mark, "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CODEX") {
		t.Fatalf("codex did not answer: %s", out)
	}
	checkKeptOut(t, f, real, "OPENAI_API_KEY")
	for _, v := range f.Inside() {
		for path := range v.files {
			if strings.HasSuffix(path, "auth.json") || strings.Contains(path, "other-project") {
				t.Errorf("the sandbox sees %s", path)
			}
		}
	}
	if rollouts := instanceFiles(t, h, "agents/codex/sessions"); len(rollouts) != 1 || !strings.Contains(filepath.Base(rollouts[0]), "rollout-") {
		t.Errorf("the session's rollout is not in the instance: %v", rollouts)
	}
	if dbs := instanceFiles(t, h, "agents/codex/sqlite"); len(dbs) == 0 {
		t.Error("codex's state databases are not in the instance")
	}
}

// TestAgentGemini: gemini -p answers through the proxy; the upstream sees
// the real key (from ~/.gemini/.env), the sandbox only a phantom, and
// neither the .env nor the Google login's file; the chat lands in the
// instance.
func TestAgentGemini(t *testing.T) {
	requireAgent(t, "gemini", "@google/gemini-cli")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	real := "AIza-real-gemini-key-0123456789"
	h.write(filepath.Join(h.home, ".gemini", ".env"), "GEMINI_API_KEY="+real+"\n")
	h.write(filepath.Join(h.home, ".gemini", "oauth_creds.json"), `{"refresh_token":"google-refresh"}`+"\n")
	h.write(filepath.Join(h.home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true}}`+"\n")
	mark := testMark(t)
	f := startAgentAPI(t, "X-Goog-Api-Key", lookInside(filepath.Join(h.home, ".gemini"), mark))
	out := h.run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, noResolve}, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	checkKeptOut(t, f, real, "GEMINI_API_KEY")
	for _, v := range f.Inside() {
		for path, content := range v.files {
			if strings.HasSuffix(path, ".env") || strings.HasSuffix(path, "oauth_creds.json") || strings.Contains(content, "google-refresh") {
				t.Errorf("the sandbox sees %s", path)
			}
		}
	}
	if chats := instanceFiles(t, h, "agents/gemini/tmp"); !strings.Contains(strings.Join(chats, "\n"), "/chats/session-") {
		t.Errorf("the chat is not in the instance: %v", chats)
	}
}
