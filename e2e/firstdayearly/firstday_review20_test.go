package firstdayearly

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
	harness.Press(t, tmux, func(s string) bool { return strings.Contains(s, "suspended") }, "Claude to say it is suspended", "C-z")
	// Busy, Claude takes seconds to stop; the shell says when the job has.
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Stopped") }, "the shell to say claudebox stopped")
	tmux("send-keys", "echo AL''IVE-$(jobs | grep -c Stopped)", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE-1") }, "the shell, with claudebox stopped")
	tmux("send-keys", "clear; fg", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "Claude back after fg")
	harness.Ask(t, tmux, "hello", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-ctrlz") }, "Claude to answer after fg")
	harness.CtrlCTwice(t, tmux, harness.SessionEnded, "Claude to end on Ctrl-C")
	tmux("send-keys", "echo EX''IT-$?", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXIT-0") }, "claudebox's exit status")

	// A shell inside keeps its own job control: Ctrl-Z stops its job,
	// and claudebox, whose foreground the shell takes back, runs on.
	tmux("send-keys", "clear; claudebox --shell --norc --noprofile", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return !strings.Contains(s, "clear;") && strings.Contains(s, "$") }, "the shell inside")
	tmux("send-keys", "sleep 100", "Enter")
	// A Ctrl-Z before sleep is the shell's foreground job stops nothing.
	harness.Press(t, tmux, func(s string) bool { return strings.Contains(s, "Stopped") }, "the inner job to stop", "C-z")
	time.Sleep(2 * time.Second)
	tmux("send-keys", "echo IN''SIDE-$(jobs | grep -c sleep)", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "INSIDE-1") }, "the shell inside, with its job stopped")
}

// TestFirstDayUserClaudeMDImports: what the user's own ~/.claude/CLAUDE.md
// imports (@path) from outside ~/.claude, and what that file imports in
// turn, reaches Claude inside as it does the host's claude; the sandbox
// showed neither, and Claude went on without them, silently. And the
// sentinels the host's claude leaves in ~/.claude (.last-cleanup) are
// its state, not a file of the user's the launch names as left out.
func TestFirstDayUserClaudeMDImports(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "CLAUDE.md"), "be brief\n@~/dotfiles/claude/team.md\n@extra.md\n\n```\n@~/dotfiles/claude/in-code.md\n```\n")
	h.Write(filepath.Join(h.Home, ".claude", "extra.md"), "CLAUDE-DIR-IMPORT-c7\n")
	h.Write(filepath.Join(h.Home, "dotfiles", "claude", "team.md"), "TEAM-IMPORT-a3\n@./style\\ guide.md\n")
	h.Write(filepath.Join(h.Home, "dotfiles", "claude", "style guide.md"), "NESTED-IMPORT-b5\n")
	h.Write(filepath.Join(h.Home, "dotfiles", "claude", "in-code.md"), "IN-CODE-d9\n")
	// As the host's claude leaves it, once it has cleaned old sessions up.
	h.Write(filepath.Join(h.Home, ".claude", ".last-cleanup"), "2026-11-28T09:12:44.412Z")
	const key = "sk-ant-test-key-imports-0123456789abcdef"
	h.Onboarded(key, proj)
	for _, prog := range []string{"claude", "claudebox"} {
		api := harness.StartFakeAPI(t, "FAKE-REPLY-imports")
		out, err := h.Command(proj, api.Env(key), prog, "-p", "hello").CombinedOutput()
		if err != nil {
			t.Fatalf("%s -p: %v\n%s", prog, err, out)
		}
		if strings.Contains(string(out), "not shown inside") {
			t.Errorf("%s named what it left out of ~/.claude:\n%s", prog, out)
		}
		for mark, want := range map[string]bool{"TEAM-IMPORT-a3": true, "NESTED-IMPORT-b5": true, "CLAUDE-DIR-IMPORT-c7": true, "IN-CODE-d9": false} {
			if api.Received(mark) != want {
				t.Errorf("%s: %s reached the API: %v, want %v\n%s", prog, mark, !want, want, out)
			}
		}
	}
}
