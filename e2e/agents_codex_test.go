package e2e

// Codex with a ChatGPT login (~/.codex/auth.json holding tokens), the real
// codex-cli inside the real sandbox, against a fake ChatGPT backend and a
// fake token endpoint on 127.0.0.1.

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

// fakeChatGPT is the ChatGPT backend (its codex/responses) and OpenAI's
// token endpoint (/oauth/token). Each backend call records the bearer and
// the account it got, and what the sandbox's processes hold at that time.
type fakeChatGPT struct {
	URL string
	// refreshOK says the token endpoint answers with newAccess.
	refreshOK bool
	newAccess string
	// toolCall, when set, is the input of an exec tool call the first
	// model call answers with; answer is the text of the reply.
	toolCall string
	answer   string

	mu        sync.Mutex
	bearers   []string
	accounts  []string
	refreshes []map[string]string
	bodies    []string
	inside    []sandboxView
	look      func() []sandboxView
}

func startFakeChatGPT(t *testing.T, refreshOK bool, newAccess string, look func() []sandboxView) *fakeChatGPT {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeChatGPT{URL: "http://" + ln.Addr().String(), refreshOK: refreshOK, newAccess: newAccess, look: look, answer: "PONG-CHATGPT"}
	srv := &http.Server{Handler: f}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return f
}

func (f *fakeChatGPT) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/oauth/token":
		var req map[string]string
		json.Unmarshal(body, &req)
		f.refreshes = append(f.refreshes, req)
		if !f.refreshOK {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"access_token": f.newAccess, "refresh_token": "real-refresh-rotated", "id_token": chatGPTIDToken()})
	case strings.HasPrefix(r.URL.Path, "/backend-api/codex/"):
		f.bearers = append(f.bearers, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		f.accounts = append(f.accounts, r.Header.Get("Chatgpt-Account-Id"))
		f.bodies = append(f.bodies, string(body))
		f.inside = append(f.inside, f.look()...)
		if r.URL.Path != "/backend-api/codex/responses" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		item := map[string]any{
			"type": "message", "role": "assistant", "id": "msg_1",
			"content": []any{map[string]any{"type": "output_text", "text": f.answer}},
		}
		if f.toolCall != "" {
			item = map[string]any{"type": "custom_tool_call", "name": "exec", "input": f.toolCall, "call_id": "call_1", "id": "ctc_1", "status": "completed"}
			f.toolCall = ""
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

// writeChatGPTLogin writes the host's ChatGPT login, with keys claudebox
// does not know, which a refresh must keep.
func writeChatGPTLogin(h *e2eHost, access string) string {
	path := filepath.Join(h.home, ".codex", "auth.json")
	b, _ := json.MarshalIndent(map[string]any{
		"auth_mode": "chatgpt", "OPENAI_API_KEY": nil, "unknown_top": "kept",
		"tokens": map[string]any{
			"id_token": chatGPTIDToken(), "access_token": access, "refresh_token": "real-refresh-original",
			"account_id": "acct-real-42", "unknown_token_key": "kept too",
		},
		"last_refresh": "2020-01-01T00:00:00Z",
	}, "", "  ")
	h.write(path, string(b))
	os.Chmod(path, 0o600)
	return path
}

// TestAgentCodexChatGPT: with an expired ChatGPT login on the host, the
// supervisor refreshes it (Codex's request, the real refresh token, the
// test's token endpoint), writes it back with the unknown keys kept, and
// the backend gets the new access token and the real account; codex
// inside answers, holding only a phantom login: no real token in any
// sandboxed process's environment, arguments or view of ~/.codex, nor in
// --dry-run or anything under ~/.claudebox.
func TestAgentCodexChatGPT(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	expired := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(-time.Hour).Unix(), "jti": "real-access-expired"})
	fresh := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix(), "jti": "real-access-fresh"})
	authPath := writeChatGPTLogin(h, expired)
	h.write(filepath.Join(h.home, ".codex", "config.toml"), "model = \"gpt-test\"\n")
	mark := testMark(t)
	f := startFakeChatGPT(t, true, fresh, lookInsideArgs(filepath.Join(h.home, ".codex"), mark))
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token", noResolve}

	dry := h.run(proj, env, "claudebox", "--dry-run", "--agent", "codex", "exec", "say pong")
	out := h.run(proj, env, "claudebox", "--env", mark, "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.refreshes) != 1 || f.refreshes[0]["refresh_token"] != "real-refresh-original" || f.refreshes[0]["client_id"] != "app_EMoamEEZ73f0CkXaXp7hrann" || f.refreshes[0]["grant_type"] != "refresh_token" {
		t.Errorf("the token endpoint got %v, not one refresh of the real login", f.refreshes)
	}
	if len(f.bearers) == 0 {
		t.Fatal("the backend got no call")
	}
	for i := range f.bearers {
		if f.bearers[i] != fresh || f.accounts[i] != "acct-real-42" {
			t.Errorf("the backend got bearer %q, account %q: not the refreshed token and the real account", f.bearers[i], f.accounts[i])
		}
	}
	var saved struct {
		Unknown string            `json:"unknown_top"`
		Tokens  map[string]string `json:"tokens"`
		Last    string            `json:"last_refresh"`
	}
	b, _ := os.ReadFile(authPath)
	if err := json.Unmarshal(b, &saved); err != nil || saved.Unknown != "kept" || saved.Tokens["unknown_token_key"] != "kept too" ||
		saved.Tokens["access_token"] != fresh || saved.Tokens["refresh_token"] != "real-refresh-rotated" || saved.Last == "2020-01-01T00:00:00Z" {
		t.Errorf("the host's login was not written back as refreshed, its other keys kept:\n%s", b)
	}
	secrets := []string{expired, fresh, "real-refresh-original", "real-refresh-rotated"}
	seen := false
	for _, v := range f.inside {
		for _, s := range secrets {
			if strings.Contains(v.environ, s) {
				t.Errorf("sandboxed process %s holds a real token in its environment or arguments", v.pid)
			}
			for path, content := range v.files {
				if strings.Contains(content, s) {
					t.Errorf("sandboxed process %s sees a real token in %s", v.pid, path)
				}
			}
		}
		if c, ok := v.files[filepath.Join(h.home, ".codex", "auth.json")]; ok && strings.Contains(c, "claudebox-phantom-account") {
			seen = true
		}
	}
	if !seen {
		t.Error("no sandboxed process was seen with the phantom login")
	}
	for _, s := range secrets {
		if strings.Contains(dry, s) {
			t.Errorf("--dry-run shows a real token:\n%s", dry)
		}
	}
	filepath.Walk(filepath.Join(h.home, ".claudebox"), func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			b, _ := os.ReadFile(path)
			for _, s := range secrets {
				if strings.Contains(string(b), s) {
					t.Errorf("%s holds a real token", path)
				}
			}
		}
		return nil
	})
}

// TestAgentCodexChatGPTRefreshFails: when the host's login cannot be
// refreshed, codex inside shows why and says to log in again on the host.
func TestAgentCodexChatGPTRefreshFails(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	expired := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
	writeChatGPTLogin(h, expired)
	f := startFakeChatGPT(t, false, "", func() []sandboxView { return nil })
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token", noResolve}
	c := h.command(proj, env, "claudebox", "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	out, _ := c.CombinedOutput()
	if !strings.Contains(string(out), "log in again on the host: codex login") {
		t.Errorf("codex did not show the way out:\n%s", out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bearers) != 0 {
		t.Errorf("the backend got a call with the expired login: %v", f.bearers)
	}
}

// The host-only variables that replace the ChatGPT backend and the token
// endpoint (session/agents.go).
const (
	chatGPTURLVar    = "CLAUDEBOX_CHATGPT_URL"
	codexTokenURLVar = "CLAUDEBOX_OAUTH_TOKEN_URL"
)

// lookInsideArgs is lookInside with each process's arguments added to
// what it holds.
func lookInsideArgs(dir, mark string) func() []sandboxView {
	look := lookInside(dir, mark)
	return func() []sandboxView {
		views := look()
		for i, v := range views {
			cmdline, _ := os.ReadFile("/proc/" + v.pid + "/cmdline")
			views[i].environ += "\n" + strings.ReplaceAll(string(cmdline), "\x00", " ")
		}
		return views
	}
}

// TestAgentCodexHostNetwork: with --network=host, codex reaches the proxy
// on a port of the host's loopback, known only once the proxy listens,
// and still holds only the phantom login; the backend gets the real one.
// Its other ways out go to a dead proxy: the test reaches no other
// address.
func TestAgentCodexHostNetwork(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	access := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix(), "jti": "real-access-host"})
	writeChatGPTLogin(h, access)
	mark := testMark(t)
	f := startFakeChatGPT(t, false, "", lookInsideArgs(filepath.Join(h.home, ".codex"), mark))
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token"}
	out := h.run(proj, env, "claudebox", "--network=host", "--env", mark, "--env", "HTTPS_PROXY=http://127.0.0.1:9", "--env", "NO_PROXY=127.0.0.1",
		"--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bearers) == 0 || len(f.refreshes) != 0 {
		t.Fatalf("backend calls %d, refreshes %d", len(f.bearers), len(f.refreshes))
	}
	for i := range f.bearers {
		if f.bearers[i] != access || f.accounts[i] != "acct-real-42" {
			t.Errorf("the backend got bearer %q, account %q", f.bearers[i], f.accounts[i])
		}
	}
	if len(f.inside) == 0 {
		t.Error("no sandboxed process was seen")
	}
	for _, v := range f.inside {
		if strings.Contains(v.environ, access) {
			t.Errorf("sandboxed process %s holds the real token in its environment or arguments", v.pid)
		}
		for path, content := range v.files {
			if strings.Contains(content, access) {
				t.Errorf("sandboxed process %s sees the real token in %s", v.pid, path)
			}
		}
	}
}

// TestAgentCodexInstructions: codex gets SANDBOX.md's facts after the
// user's own global instructions (~/.codex/AGENTS.md), and the project's
// AGENTS.md after both, as it combines them (measured with 0.169.0); the
// host's file stays as it was.
func TestAgentCodexInstructions(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "app")
	h.gitRepo(proj)
	h.write(filepath.Join(proj, "AGENTS.md"), "PROJECT-INSTRUCTIONS-MARK\n")
	global := filepath.Join(h.home, ".codex", "AGENTS.md")
	h.write(global, "USER-GLOBAL-MARK\n")
	writeChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := startFakeChatGPT(t, false, "", func() []sandboxView { return nil })
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token", noResolve}
	h.run(proj, env, "claudebox", "--agent", "codex", "exec", "say pong")
	f.mu.Lock()
	defer f.mu.Unlock()
	var body string
	for _, b := range f.bodies {
		if strings.Contains(b, `"input"`) {
			body = b
		}
	}
	user := strings.Index(body, "USER-GLOBAL-MARK")
	facts := strings.Index(body, "This session runs inside claudebox")
	project := strings.Index(body, "PROJECT-INSTRUCTIONS-MARK")
	if user < 0 || facts < user || project < facts {
		t.Errorf("the instructions are not the user's, then the sandbox's facts, then the project's (at %d, %d, %d):\n%.3000s", user, facts, project, body)
	}
	if b, _ := os.ReadFile(global); string(b) != "USER-GLOBAL-MARK\n" {
		t.Errorf("the host's AGENTS.md changed: %q", b)
	}
}

// TestAgentCodexTUI: codex's interactive mode starts with a ChatGPT login
// (it discovers its workspace's routing first, which the proxy answers
// for the phantom account) and answers through the proxy. Its question
// whether the user trusts the project is asked once: the next session
// starts at the prompt, and the host's ~/.codex/config.toml is never
// written.
func TestAgentCodexTUI(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "tui")
	h.gitRepo(proj)
	writeChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := startFakeChatGPT(t, false, "", func() []sandboxView { return nil })
	tmux := h.tmux(proj)
	launch := "env " + chatGPTURLVar + "=" + f.URL + "/backend-api/codex " + codexTokenURLVar + "=" + f.URL + "/oauth/token " + noResolve + " TERM=xterm-256color claudebox --agent codex"
	tmux("new-session", "-d", "-x", "150", "-y", "40", launch)
	waitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Trust this folder?") }, "the trust question")
	// The question can show before codex reads keys (a CI run's Enter was
	// lost): pressed again while it stands, a few times at most.
	for range 5 {
		tmux("send-keys", "Enter")
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && strings.Contains(tmux("capture-pane", "-p"), "Trust this folder?"); {
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(tmux("capture-pane", "-p"), "Trust this folder?") {
			break
		}
	}
	waitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Ask Codex") }, "the prompt")
	tmux("send-keys", "-l", "say pong")
	time.Sleep(300 * time.Millisecond)
	tmux("send-keys", "Enter")
	waitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "PONG-CHATGPT") }, "the fake reply")
	tmux("send-keys", "C-c") // codex quits on an empty prompt
	// Under load the reply can show before its turn ends, and a Ctrl-C
	// then only ends the turn: pressed again while codex's prompt stands.
	// The pane is read without failing: it closes once claudebox exits.
	sock := filepath.Join(h.base, "tmux.sock") // h.tmux's server
	records := filepath.Join(h.home, ".claudebox", "trust")
	deadline := time.Now().Add(30 * time.Second)
	pressed := time.Now()
	for {
		if files, _ := os.ReadDir(records); len(files) == 1 {
			break
		}
		screen, _ := h.command(proj, nil, "tmux", "-S", sock, "capture-pane", "-p").Output()
		if time.Now().After(deadline) {
			t.Fatalf("no trust recorded after the session; the screen shows:\n%s", screen)
		}
		if strings.Contains(string(screen), "Ask Codex") && time.Since(pressed) > 5*time.Second {
			h.command(proj, nil, "tmux", "-S", sock, "send-keys", "C-c").Run()
			pressed = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // the first session's tmux window closes
	tmux("new-session", "-d", "-s", "again", "-x", "150", "-y", "40", launch)
	screen := waitScreen(t, tmux, func(s string) bool {
		return strings.Contains(s, "Ask Codex") || strings.Contains(s, "Trust this folder?")
	}, "the second session's prompt")
	if strings.Contains(screen, "Trust this folder?") {
		t.Errorf("the second session asked again:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".codex", "config.toml")); err == nil {
		t.Error("the host's ~/.codex/config.toml was written")
	}
}

// TestExportCodex: a codex session's rollout (a prompt, an exec tool call
// and its output, an answer holding an escape sequence and a <script>) is
// listed by claudebox --list-sessions and exported by claudebox --export
// with nothing of what the answer planted coming out raw.
//
// With -u it also stores the rollout, machine paths scrubbed, as the
// transcript package's fixture (testdata/codex-0.169.0.jsonl).
func TestExportCodex(t *testing.T) {
	requireAgent(t, "codex", "@openai/codex")
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "demo")
	h.gitRepo(proj)
	writeChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := startFakeChatGPT(t, false, "", func() []sandboxView { return nil })
	f.toolCall = `text("hello from js " + (40 + 2))`
	f.answer = "Done: the *answer* is 42. \x1b]0;pwned\x07 <script>alert(1)</script> [docs](https://example.com/docs)"
	env := []string{chatGPTURLVar + "=" + f.URL + "/backend-api/codex", codexTokenURLVar + "=" + f.URL + "/oauth/token", noResolve}
	h.run(proj, env, "claudebox", "--agent", "codex", "exec", "compute the answer")
	list := h.run(proj, nil, "claudebox", "--list-sessions")
	if !strings.Contains(list, "compute the answer") {
		t.Errorf("--list-sessions does not list the codex session:\n%s", list)
	}
	md := h.run(proj, nil, "claudebox", "--export")
	for _, want := range []string{
		"agent: codex", `codex: ["0.169.0"]`, `project: "~/code/demo"`, "## User\n", "> compute the answer", "## Codex\n",
		"**exec**", `text("hello from js " + (40 + 2))`, "hello from js 42", "Done: the *answer* is 42.",
		"&lt;script>alert(1)&lt;/script>", "\\x1b]0;pwned\\x07", "[docs](https://example.com/docs)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	for _, bad := range []string{"\x1b", "<script>", h.base, "AGENTS.md instructions", "environment_context"} {
		if strings.Contains(md, bad) {
			t.Errorf("the export holds %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("export:\n%s", md)
	}
	if !*update && !t.Failed() {
		return
	}
	rollouts := instanceFiles(t, h, "agents/codex/sessions")
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v, want one", rollouts)
	}
	b, err := os.ReadFile(rollouts[0])
	if err != nil {
		t.Fatal(err)
	}
	scrubbed := strings.ReplaceAll(string(b), h.base, "")
	if err := os.WriteFile(filepath.Join("..", "transcript", "testdata", "codex-0.169.0.jsonl"), []byte(scrubbed), 0o644); err != nil {
		t.Fatal(err)
	}
}
