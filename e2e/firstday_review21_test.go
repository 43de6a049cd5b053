package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayCtrlZNetworks: Ctrl-Z suspends claudebox on the host's
// network and on none as it does on the filtered one
// (TestFirstDayCtrlZ): bwrap ran Claude there itself, in bwrap's own
// process group, where the kernel drops Claude's kill(0, SIGTSTP); the
// terminal stayed Claude's, and the shell never came back.
func TestFirstDayCtrlZNetworks(t *testing.T) {
	harness.RequireClaude(t)
	for _, network := range []string{"host", "none"} {
		t.Run(network, func(t *testing.T) {
			h := harness.NewHost(t)
			api := harness.StartFakeAPI(t, "FAKE-REPLY-ctrlz-"+network)
			const key = "sk-ant-test-ctrlz-key-0123456789"
			proj := filepath.Join(h.Home, "code", "ctrlz")
			h.Write(filepath.Join(proj, "README"), "z\n")
			h.Onboarded(key, proj)
			tmux := h.Tmux(proj)
			tmux("new-session", "-d", "-x", "120", "-y", "40", "bash --norc --noprofile")
			tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox --network="+network, "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
			tmux("send-keys", "C-z")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "suspended") }, "Claude to say it is suspended")
			tmux("send-keys", "echo AL''IVE-$(jobs | grep -c Stopped)", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE-1") }, "the shell, with claudebox stopped")
			tmux("send-keys", "clear; fg", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "Claude back after fg")
			if network == "host" {
				tmux("send-keys", "-l", "hello")
				time.Sleep(300 * time.Millisecond)
				tmux("send-keys", "Enter")
				harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "FAKE-REPLY-ctrlz-host") }, "Claude to answer after fg")
			}
			tmux("send-keys", "C-c")
			time.Sleep(300 * time.Millisecond)
			tmux("send-keys", "C-c")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.HasSuffix(strings.TrimSpace(s), "$") }, "the shell's prompt")
			tmux("send-keys", "echo EX''IT-$?", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXIT-0") }, "claudebox's exit status")
		})
	}
}
