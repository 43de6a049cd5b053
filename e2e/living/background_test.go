package living

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxPrintInBackground: claudebox -p PROMPT & from an interactive
// shell completes, as claude -p & does: a background job does not take the
// terminal (raw mode, its settings put back), which would stop it with
// "Stopped (tty output)".
func TestSandboxPrintInBackground(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-bg")
	const key = "sk-ant-test-background-key-0123456789"
	proj := filepath.Join(h.Home, "code", "bg")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Onboarded(key, proj)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "env -i HOME="+h.Home+" PATH="+h.Bin+":/usr/local/bin:/usr/bin:/bin TERM=xterm-256color GIT_CONFIG_NOSYSTEM=1 bash --norc --noprofile -i")
	out := filepath.Join(proj, "out.txt")
	tmux("send-keys", "-l", "export "+strings.Join(api.Env(key), " ")+"; claudebox -p hello > "+out+" 2>&1 & sleep 6; jobs -l; echo JOBS-$((40+2))")
	tmux("send-keys", "Enter")
	screen := harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "JOBS-42") }, "the job list")
	if strings.Contains(screen, "Stopped") {
		t.Errorf("the background claudebox stopped:\n%s", screen)
	}
	// Running, not stopped, it ends in its own time (seconds, under load).
	harness.WaitFor(t, "the background claudebox's reply", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "FAKE-REPLY-bg")
	})
}
