package firstday

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay40RefusedKeyUsesLogin: a user with a Claude login and an
// ANTHROPIC_API_KEY in their shell (for another tool) who told Claude Code
// not to use the key. Claude Code on the host then uses the login; the
// sandbox got the key's phantom, and Claude Code inside asked "Do you want
// to use this API key?" in each new project, its answer "No
// (recommended)" leaving it "Not logged in". The session uses the login.
func TestFirstDay40RefusedKeyUsesLogin(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "refused40")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-refused40-0123456789abcd"
	h.Write(filepath.Join(h.Home, ".claude.json"), fmt.Sprintf(`{
  "hasCompletedOnboarding": true,
  "lastOnboardingVersion": "2.1.330",
  "theme": "dark",
  "customApiKeyResponses": {"approved": [], "rejected": [%q]},
  "projects": {%q: {"hasTrustDialogAccepted": true}}
}
`, key[len(key)-20:], proj))
	h.Write(filepath.Join(h.Home, ".claude", ".credentials.json"), harness.LoginJSON("sk-ant-oat01-refused40-access", "sk-ant-ort01-refused40-refresh", time.Now().Add(24*time.Hour)))
	h.Chown()
	api := harness.StartFakeAPI(t, "FAKE-REPLY-refused40")
	stderr := filepath.Join(h.Base, "stderr")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "150", "-y", "40", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox 2>"+stderr+"; echo CLAUDEBOX-ENDED >>"+stderr+"; sleep 60")
	const question = "Do you want to use this API key"
	screen := harness.WaitScreen(t, tmux, func(s string) bool {
		return strings.Contains(s, question) || strings.Contains(s, "shift+tab to cycle")
	}, "Claude Code's prompt")
	if strings.Contains(screen, question) {
		t.Fatalf("Claude Code inside asked about the API key the user refused:\n%s", screen)
	}
	harness.Ask(t, tmux, "hello", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-refused40") }, "the reply")
	if strings.Contains(tmux("capture-pane", "-p"), "Not logged in") {
		t.Errorf("Claude Code inside is not logged in:\n%s", tmux("capture-pane", "-p"))
	}
	var auth []string
	for _, hd := range api.Headers() {
		auth = append(auth, hd.Get("Authorization")+hd.Get("X-Api-Key"))
	}
	if !strings.Contains(strings.Join(auth, " "), "Bearer sk-ant-oat01-refused40-access") || strings.Contains(strings.Join(auth, " "), key) {
		t.Errorf("the API was not asked with the login's token alone: %q", auth)
	}
	harness.Slash(t, tmux, "/exit", func(s string) bool { return !strings.Contains(s, "/exit") }, "/exit")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		said, _ := os.ReadFile(stderr)
		if strings.Contains(string(said), "CLAUDEBOX-ENDED") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("claudebox did not end; it said:\n%s", said)
		}
	}
}
