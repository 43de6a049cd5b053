package agents

// The real Codex and Gemini CLIs in the real sandbox, as an unprivileged
// user, against fake upstreams on 127.0.0.1: the smallest each accepts (a
// Responses API stream for Codex; generateContent and
// streamGenerateContent for Gemini). Nothing reaches any other address:
// the base URLs are the fakes, the filtered network resolves no name
// (CLAUDEBOX_RESOLVE names only an unused one), and their telemetry and
// update checks are off.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// checkKeptOut checks that the upstream got the real key on every call,
// and that no sandboxed process held it, in its environment or its view
// of the agent's configuration directory, while one held the phantom.
func checkKeptOut(t *testing.T, f *harness.FakeAgentAPI, real, variable string) {
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
		if strings.Contains(v.Environ, real) {
			t.Errorf("sandboxed process %s holds the real key in its environment", v.Pid)
		}
		for path, content := range v.Files {
			if strings.Contains(content, real) {
				t.Errorf("sandboxed process %s sees the real key in %s", v.Pid, path)
			}
		}
		phantom = phantom || strings.Contains(v.Environ, "\n"+variable+"=") || strings.HasPrefix(v.Environ, variable+"=")
	}
	if !phantom {
		t.Errorf("no sandboxed process was seen with %s: the look inside found nothing", variable)
	}
}

// instanceFiles lists the files of the project's instance under sub.
func instanceFiles(t *testing.T, h *harness.Host, sub string) []string {
	t.Helper()
	var files []string
	dirs, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "projects", "*", sub))
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

// TestAgentCodex: codex exec answers through the proxy; the upstream sees
// the user's real key (from ~/.codex/auth.json), the sandbox only a
// phantom, and neither auth.json nor the host's other sessions; the
// session's rollout lands in the instance.
func TestAgentCodex(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	real := "sk-real-codex-key-0123456789"
	h.Write(filepath.Join(h.Home, ".codex", "auth.json"), `{"OPENAI_API_KEY":"`+real+`"}`+"\n")
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), "model = \"gpt-test\"\n")
	h.Write(filepath.Join(h.Home, ".codex", "sessions", "2020", "other-project.jsonl"), "another project's session\n")
	mark := harness.TestMark(t)
	f := harness.StartAgentAPI(t, "Authorization", harness.LookInside(filepath.Join(h.Home, ".codex"), mark))
	out := h.Run(proj, []string{"OPENAI_BASE_URL=" + f.URL + "/v1", harness.NoResolve}, "claudebox", "--env", mark, "--agent", "codex", "exec", "--skip-git-repo-check", "say pong")
	if !strings.Contains(out, "PONG-CODEX") {
		t.Fatalf("codex did not answer: %s", out)
	}
	checkKeptOut(t, f, real, "OPENAI_API_KEY")
	for _, v := range f.Inside() {
		for path := range v.Files {
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
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	real := "AIza-real-gemini-key-0123456789"
	h.Write(filepath.Join(h.Home, ".gemini", ".env"), "GEMINI_API_KEY="+real+"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "oauth_creds.json"), `{"refresh_token":"google-refresh"}`+"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true}}`+"\n")
	mark := harness.TestMark(t)
	f := harness.StartAgentAPI(t, "X-Goog-Api-Key", harness.LookInside(filepath.Join(h.Home, ".gemini"), mark))
	out := h.Run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, harness.NoResolve}, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	checkKeptOut(t, f, real, "GEMINI_API_KEY")
	for _, v := range f.Inside() {
		for path, content := range v.Files {
			if strings.HasSuffix(path, ".env") || strings.HasSuffix(path, "oauth_creds.json") || strings.Contains(content, "google-refresh") {
				t.Errorf("the sandbox sees %s", path)
			}
		}
	}
	if chats := instanceFiles(t, h, "agents/gemini/tmp"); !strings.Contains(strings.Join(chats, "\n"), "/chats/session-") {
		t.Errorf("the chat is not in the instance: %v", chats)
	}
}
