package firstday

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay43BesideSessionResumeLine: two sessions side by side in one
// project, as a user runs them in two terminals. The first waits at its
// prompt; the second, a claudebox -p, ends; then the first ends, with
// nothing asked. Its end named the conversation written last in the
// project's history, the second's: "resume this session with: claudebox
// --resume" of the other session. Each
// session's end names only a conversation its own Claude asked the API
// about (the X-Claude-Code-Session-Id its calls carried through the
// session's proxy).
func TestFirstDay43BesideSessionResumeLine(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "beside43")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-beside43-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-beside43")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "200", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox; echo ended-$((40+3))", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")

	second := h.RunBoth(proj, "env", append(api.Env(key), "claudebox", "-p", "hello second")...)
	ids := regexp.MustCompile(`claudebox --resume ([0-9a-f-]{36})`)
	m := ids.FindStringSubmatch(second)
	if m == nil {
		t.Fatalf("the second session does not say how to resume it:\n%s", second)
	}
	// With nothing asked, the end names no conversation.
	screen := harness.Slash(t, tmux, "/exit", func(s string) bool { return strings.Contains(s, "\nended-43") }, "the shell after the first session's end")
	if strings.Contains(screen, m[1]) {
		t.Errorf("the first session's end names the second's conversation %s:\n%s", m[1], screen)
	}
}
