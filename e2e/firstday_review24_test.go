package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayRewindAfterContinue: Claude Code keeps a checkpoint of
// each file before its edits, and /rewind after claude -c restores the
// code from it; claudebox kept its checkpoints in the sandbox's private
// ~/.claude, lost at exit, and /rewind after claudebox -c offered the
// edit and then said "No files were restored: 1 file failed (backup
// missing…)". They are kept per project, and the rewind restores the
// file.
func TestFirstDayRewindAfterContinue(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "rewind")
	h.GitRepo(proj)
	readme := filepath.Join(proj, "README")
	const key = "sk-ant-test-key-rewind-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-rewind", harness.ToolCall{Name: "Edit", Input: map[string]any{
		"file_path": readme, "old_string": "hello", "new_string": "EDITED-BY-THE-SESSION",
	}})
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox --permission-mode acceptEdits", "Enter")
	prompt := func(s string) bool { return strings.Contains(s, "❯") }
	harness.WaitScreen(t, tmux, prompt, "the prompt")
	tmux("send-keys", "-l", "edit the README")
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "FAKE-REPLY-rewind") }, "the edit and the reply")
	if b, _ := os.ReadFile(readme); string(b) != "EDITED-BY-THE-SESSION\n" {
		t.Fatalf("the session did not edit the README: %q", b)
	}
	tmux("send-keys", "-l", "/exit")
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "claudebox --resume") }, "the session's end")
	tmux("send-keys", "clear; env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox -c", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return prompt(s) && strings.Contains(s, "FAKE-REPLY-rewind") }, "the continued conversation")
	tmux("send-keys", "-l", "/rewind")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "/rewind") }, "/rewind typed")
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Restore the code") }, "the checkpoints")
	tmux("send-keys", "Up")
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Restore code and conversation") }, "what to restore")
	tmux("send-keys", "Enter")
	screen := harness.WaitScreen(t, tmux, func(s string) bool {
		b, _ := os.ReadFile(readme)
		return string(b) == "hello\n" || strings.Contains(s, "Failed to restore")
	}, "the rewind")
	if b, _ := os.ReadFile(readme); string(b) != "hello\n" {
		t.Errorf("/rewind after claudebox -c did not restore the README (%q):\n%s", b, screen)
	}
}
