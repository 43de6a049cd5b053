package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxPrintInBackground: claudebox -p PROMPT & from an interactive
// shell completes, as claude -p & does: a background job does not take the
// terminal (raw mode, its settings put back), which would stop it with
// "Stopped (tty output)".
func TestSandboxPrintInBackground(t *testing.T) {
	h := newE2EHost(t)
	requireClaude(t)
	api := startFakeAPI(t, "FAKE-REPLY-bg")
	const key = "sk-ant-test-background-key-0123456789"
	proj := filepath.Join(h.home, "code", "bg")
	h.write(filepath.Join(proj, "x"), "x\n")
	h.onboarded(key, proj)
	tmux := h.tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "env -i HOME="+h.home+" PATH="+h.bin+":/usr/local/bin:/usr/bin:/bin TERM=xterm-256color bash --norc --noprofile -i")
	out := filepath.Join(proj, "out.txt")
	tmux("send-keys", "-l", "export "+strings.Join(api.Env(key), " ")+"; claudebox -p hello > "+out+" 2>&1 & sleep 6; jobs -l; echo JOBS-$((40+2))")
	tmux("send-keys", "Enter")
	screen := waitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "JOBS-42") }, "the job list")
	if strings.Contains(screen, "Stopped") {
		t.Errorf("the background claudebox stopped:\n%s", screen)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "FAKE-REPLY-bg") {
		t.Errorf("claudebox -p & wrote %q, want the reply\n%s", b, screen)
	}
}
