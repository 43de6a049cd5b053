package agents

// Codex with a ChatGPT login (~/.codex/auth.json holding tokens), the real
// codex-cli inside the real sandbox, against a fake ChatGPT backend and a
// fake token endpoint on 127.0.0.1.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/proxy"
)

// TestAgentCodexChatGPT: with an expired ChatGPT login on the host, the
// supervisor refreshes it (Codex's request, the real refresh token, the
// test's token endpoint), writes it back with the unknown keys kept, and
// the backend gets the new access token and the real account; codex
// inside answers, holding only a phantom login: no real token in any
// sandboxed process's environment, arguments or view of ~/.codex, nor in
// --dry-run or anything under ~/.claudebox.
func TestAgentCodexChatGPT(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	expired := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(-time.Hour).Unix(), "jti": "real-access-expired"})
	fresh := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix(), "jti": "real-access-fresh"})
	authPath := harness.WriteChatGPTLogin(h, expired)
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), "model = \"gpt-test\"\n")
	mark := harness.TestMark(t)
	f := harness.StartFakeChatGPT(t, true, fresh, lookInsideArgs(filepath.Join(h.Home, ".codex"), mark))
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}

	dry := h.Run(proj, env, "claudebox", "--dry-run", "--agent", "codex", "exec", "say pong")
	out := h.Run(proj, env, "claudebox", "--env", mark, "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if len(f.Refreshes) != 1 || f.Refreshes[0]["refresh_token"] != "real-refresh-original" || f.Refreshes[0]["client_id"] != "app_EMoamEEZ73f0CkXaXp7hrann" || f.Refreshes[0]["grant_type"] != "refresh_token" {
		t.Errorf("the token endpoint got %v, not one refresh of the real login", f.Refreshes)
	}
	if len(f.Bearers) == 0 {
		t.Fatal("the backend got no call")
	}
	for i := range f.Bearers {
		if f.Bearers[i] != fresh || f.Accounts[i] != "acct-real-42" {
			t.Errorf("the backend got bearer %q, account %q: not the refreshed token and the real account", f.Bearers[i], f.Accounts[i])
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
	for _, v := range f.Inside {
		for _, s := range secrets {
			if strings.Contains(v.Environ, s) {
				t.Errorf("sandboxed process %s holds a real token in its environment or arguments", v.Pid)
			}
			for path, content := range v.Files {
				if strings.Contains(content, s) {
					t.Errorf("sandboxed process %s sees a real token in %s", v.Pid, path)
				}
			}
		}
		if c, ok := v.Files[filepath.Join(h.Home, ".codex", "auth.json")]; ok && strings.Contains(c, "claudebox-phantom-account") {
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
	filepath.Walk(filepath.Join(h.Home, ".claudebox"), func(path string, fi os.FileInfo, err error) error {
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
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	expired := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(-time.Hour).Unix()})
	harness.WriteChatGPTLogin(h, expired)
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}
	c := h.Command(proj, env, "claudebox", "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	out, _ := c.CombinedOutput()
	if !strings.Contains(string(out), "log in again on the host: codex login") {
		t.Errorf("codex did not show the way out:\n%s", out)
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if len(f.Bearers) != 0 {
		t.Errorf("the backend got a call with the expired login: %v", f.Bearers)
	}
}

// lookInsideArgs is lookInside with each process's arguments added to
// what it holds.
func lookInsideArgs(dir, mark string) func() []harness.SandboxView {
	look := harness.LookInside(dir, mark)
	return func() []harness.SandboxView {
		views := look()
		for i, v := range views {
			cmdline, _ := os.ReadFile("/proc/" + v.Pid + "/cmdline")
			views[i].Environ += "\n" + strings.ReplaceAll(string(cmdline), "\x00", " ")
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
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	access := proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix(), "jti": "real-access-host"})
	harness.WriteChatGPTLogin(h, access)
	mark := harness.TestMark(t)
	f := harness.StartFakeChatGPT(t, false, "", lookInsideArgs(filepath.Join(h.Home, ".codex"), mark))
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token"}
	out := h.Run(proj, env, "claudebox", "--network=host", "--env", mark, "--env", "HTTPS_PROXY=http://127.0.0.1:9", "--env", "NO_PROXY=127.0.0.1",
		"--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if len(f.Bearers) == 0 || len(f.Refreshes) != 0 {
		t.Fatalf("backend calls %d, refreshes %d", len(f.Bearers), len(f.Refreshes))
	}
	for i := range f.Bearers {
		if f.Bearers[i] != access || f.Accounts[i] != "acct-real-42" {
			t.Errorf("the backend got bearer %q, account %q", f.Bearers[i], f.Accounts[i])
		}
	}
	if len(f.Inside) == 0 {
		t.Error("no sandboxed process was seen")
	}
	for _, v := range f.Inside {
		if strings.Contains(v.Environ, access) {
			t.Errorf("sandboxed process %s holds the real token in its environment or arguments", v.Pid)
		}
		for path, content := range v.Files {
			if strings.Contains(content, access) {
				t.Errorf("sandboxed process %s sees the real token in %s", v.Pid, path)
			}
		}
	}
}

// TestAgentCodexInstructions: codex gets SANDBOX.md's facts after the
// user's own global instructions (~/.codex/AGENTS.md), and the project's
// AGENTS.md after both, as it combines them (measured with 0.169.0); the
// host's file stays as it was.
func TestAgentCodexInstructions(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "AGENTS.md"), "PROJECT-INSTRUCTIONS-MARK\n")
	global := filepath.Join(h.Home, ".codex", "AGENTS.md")
	h.Write(global, "USER-GLOBAL-MARK\n")
	harness.WriteChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}
	h.Run(proj, env, "claudebox", "--agent", "codex", "exec", "say pong")
	f.Mu.Lock()
	defer f.Mu.Unlock()
	var body string
	for _, b := range f.Bodies {
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
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "tui")
	h.GitRepo(proj)
	harness.WriteChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	tmux := h.Tmux(proj)
	launch := "env " + harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex " + harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token " + harness.NoResolve + " TERM=xterm-256color claudebox --agent codex"
	tmux("new-session", "-d", "-x", "150", "-y", "40", launch)
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Trust this folder?") }, "the trust question")
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
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Ask Codex") }, "the prompt")
	harness.Ask(t, tmux, "say pong", func(s string) bool { return strings.Contains(s, "PONG-CHATGPT") }, "the fake reply")
	tmux("send-keys", "C-c") // codex quits on an empty prompt
	// Under load the reply can show before its turn ends, and a Ctrl-C
	// then only ends the turn: pressed again while codex's prompt stands.
	// The pane is read without failing: it closes once claudebox exits.
	sock := filepath.Join(h.Base, "tmux.sock") // h.tmux's server
	records := filepath.Join(h.Home, ".claudebox", "trust")
	deadline := time.Now().Add(60 * time.Second)
	pressed := time.Now()
	for {
		if files, _ := os.ReadDir(records); len(files) == 1 {
			break
		}
		screen, _ := h.Command(proj, nil, "tmux", "-S", sock, "capture-pane", "-p").Output()
		if time.Now().After(deadline) {
			t.Fatalf("no trust recorded after the session; the screen shows:\n%s", screen)
		}
		if strings.Contains(string(screen), "Ask Codex") && time.Since(pressed) > 5*time.Second {
			h.Command(proj, nil, "tmux", "-S", sock, "send-keys", "C-c").Run()
			pressed = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The first session's window closes once claudebox exited; the second
	// is read on its own all the same.
	harness.WaitFor(t, "the first session's window to close", func() bool {
		return h.Command(proj, nil, "tmux", "-S", sock, "has-session", "-t", "0").Run() != nil
	})
	tmux("new-session", "-d", "-s", "again", "-x", "150", "-y", "40", launch)
	screen := harness.WaitScreen(t, harness.TmuxTarget(tmux, "again"), func(s string) bool {
		return strings.Contains(s, "Ask Codex") || strings.Contains(s, "Trust this folder?")
	}, "the second session's prompt")
	if strings.Contains(screen, "Trust this folder?") {
		t.Errorf("the second session asked again:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(h.Home, ".codex", "config.toml")); err == nil {
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
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	harness.WriteChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	f.ToolCall = `text("hello from js " + (40 + 2))`
	f.Answer = "Done: the *answer* is 42. \x1b]0;pwned\x07 <script>alert(1)</script> [docs](https://example.com/docs)"
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}
	h.Run(proj, env, "claudebox", "--agent", "codex", "exec", "compute the answer")
	list := h.Run(proj, nil, "claudebox", "--list-sessions")
	if !strings.Contains(list, "compute the answer") {
		t.Errorf("--list-sessions does not list the codex session:\n%s", list)
	}
	md := h.Run(proj, nil, "claudebox", "--export")
	for _, want := range []string{
		"agent: codex", `codex: ["0.169.0"]`, `project: "~/code/demo"`, "## User\n", "> compute the answer", "## Codex\n",
		"**exec**", `text("hello from js " + (40 + 2))`, "hello from js 42", "Done: the *answer* is 42.",
		"&lt;script>alert(1)&lt;/script>", "\\x1b]0;pwned\\x07", "[docs](https://example.com/docs)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	for _, bad := range []string{"\x1b", "<script>", h.Base, "AGENTS.md instructions", "environment_context"} {
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
	scrubbed := strings.ReplaceAll(string(b), h.Base, "")
	if err := os.WriteFile(filepath.Join("..", "..", "transcript", "testdata", "codex-0.169.0.jsonl"), []byte(scrubbed), 0o644); err != nil {
		t.Fatal(err)
	}
}
