package firstdayearly

import (
	"path/filepath"
	"strings"
	"testing"

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
			harness.Press(t, tmux, func(s string) bool { return strings.Contains(s, "suspended") }, "Claude to say it is suspended", "C-z")
			// What is typed before the shell has its terminal back goes to
			// the stopping Claude, as with the host's claude.
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Stopped") }, "the shell to say claudebox stopped")
			tmux("send-keys", "echo AL''IVE-$(jobs | grep -c Stopped)", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE-1") }, "the shell, with claudebox stopped")
			tmux("send-keys", "clear; fg", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "Claude back after fg")
			if network == "host" {
				harness.Ask(t, tmux, "hello", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-ctrlz-host") }, "Claude to answer after fg")
			}
			harness.CtrlCTwice(t, tmux, func(s string) bool { return strings.HasSuffix(strings.TrimSpace(s), "$") }, "the shell's prompt")
			tmux("send-keys", "echo EX''IT-$?", "Enter")
			harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "EXIT-0") }, "claudebox's exit status")
		})
	}
}

// TestFirstDayClaudePathFlags: a prompt file claude's own
// --append-system-prompt-file or --system-prompt-file names outside the
// project reaches Claude inside as it does the host's claude (claude
// inside said "not found" and ended), the appended one beside
// SANDBOX.md (claude keeps only the last file of the flag, which
// claudebox passes SANDBOX.md with); a directory
// --add-dir names, which Claude inside cannot see, is named with the way
// to bring it (Claude went on without it, silently).
func TestFirstDayClaudePathFlags(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "prompts", "review.md"), "APPEND-PROMPT-FILE-q1\n")
	h.Write(filepath.Join(h.Home, "prompts", "system.md"), "SYSTEM-PROMPT-FILE-q2\n")
	h.Write(filepath.Join(h.Home, "code", "other", "notes.md"), "other\n")
	const key = "sk-ant-test-key-pathflags-0123456789ab"
	h.Onboarded(key, proj)
	for _, c := range []struct {
		flag, path, mark string
	}{
		{"--append-system-prompt-file", "~/prompts/review.md", "APPEND-PROMPT-FILE-q1"},
		{"--system-prompt-file", "../../prompts/system.md", "SYSTEM-PROMPT-FILE-q2"},
	} {
		for _, prog := range []string{"claude", "claudebox"} {
			api := harness.StartFakeAPI(t, "FAKE-REPLY-pathflags")
			path := strings.Replace(c.path, "~", h.Home, 1)
			out, err := h.Command(proj, api.Env(key), prog, c.flag, path, "-p", "hello").CombinedOutput()
			if err != nil {
				t.Errorf("%s %s: %v\n%s", prog, c.flag, err, out)
				continue
			}
			if !api.Received(c.mark) {
				t.Errorf("%s %s: the prompt file did not reach the API\n%s", prog, c.flag, out)
			}
			if prog == "claudebox" && c.flag == "--append-system-prompt-file" && !api.Received("- Project: "+proj) {
				t.Errorf("claudebox %s: SANDBOX.md did not reach the API beside it", c.flag)
			}
		}
	}
	api := harness.StartFakeAPI(t, "FAKE-REPLY-pathflags")
	out, err := h.Command(proj, api.Env(key), "claudebox", "--add-dir", "../other", "-p", "hello").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "not shown inside: "+filepath.Join(h.Home, "code", "other")+" (claude --add-dir)") || !strings.Contains(string(out), "--bind") {
		t.Errorf("claudebox --add-dir of a directory it does not show: %v\n%s", err, out)
	}
}
