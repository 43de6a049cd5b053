package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayCtrlZ: Ctrl-Z in claudebox suspends it as it suspends
// claude: Claude says it is suspended, the user's shell has the terminal
// back (a command typed runs there), and fg brings Claude back, answering.
// Claude stops itself with kill(0, SIGTSTP), which the kernel drops for a
// process group whose parent is in no other group of its session (bwrap's,
// inside): the terminal stayed Claude's, which waited for a SIGCONT no one
// sent, and the shell never came back.
func TestFirstDayCtrlZ(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-ctrlz")
	const key = "sk-ant-test-ctrlz-key-0123456789"
	proj := filepath.Join(h.Home, "code", "ctrlz")
	h.Write(filepath.Join(proj, "README"), "z\n")
	h.Onboarded(key, proj)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
	tmux("send-keys", "C-z")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "suspended") }, "Claude to say it is suspended")
	tmux("send-keys", "echo AL''IVE-$(jobs | grep -c Stopped)", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE-1") }, "the shell, with claudebox stopped")
	tmux("send-keys", "clear; fg", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "Claude back after fg")
	tmux("send-keys", "-l", "hello")
	time.Sleep(300 * time.Millisecond)
	tmux("send-keys", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "FAKE-REPLY-ctrlz") }, "Claude to answer after fg")
	tmux("send-keys", "C-c")
	time.Sleep(300 * time.Millisecond)
	tmux("send-keys", "C-c")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "claudebox: resume this session") }, "Claude to end on Ctrl-C")
	tmux("send-keys", "echo EX''IT-$?", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXIT-0") }, "claudebox's exit status")
}
