package firstdayearly

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
	harness.Ask(t, tmux, "edit the README", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-rewind") }, "the edit and the reply")
	if b, _ := os.ReadFile(readme); string(b) != "EDITED-BY-THE-SESSION\n" {
		t.Fatalf("the session did not edit the README: %q", b)
	}
	harness.Slash(t, tmux, "/exit", harness.SessionEnded, "the session's end")
	tmux("send-keys", "clear; env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox -c", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return prompt(s) && strings.Contains(s, "FAKE-REPLY-rewind") }, "the continued conversation")
	checkpoints := harness.Slash(t, tmux, "/rewind", func(s string) bool { return strings.Contains(s, "Restore the code") }, "the checkpoints")
	// A key sent as a menu appears can be lost (harness.Press): Up is
	// taken once the cursor's line is another, and Enter once the menu
	// it leaves is gone.
	harness.Press(t, tmux, func(s string) bool { return cursorLine(s) != cursorLine(checkpoints) }, "the cursor on the edit's checkpoint", "Up")
	harness.Press(t, tmux, func(s string) bool { return !strings.Contains(s, "Restore the code") }, "the checkpoint chosen", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "Restore code and conversation") }, "what to restore")
	screen := harness.Press(t, tmux, func(s string) bool {
		b, _ := os.ReadFile(readme)
		return string(b) == "hello\n" || strings.Contains(s, "Failed to restore")
	}, "the rewind", "Enter")
	if b, _ := os.ReadFile(readme); string(b) != "hello\n" {
		t.Errorf("/rewind after claudebox -c did not restore the README (%q):\n%s", b, screen)
	}
}

// TestFirstDayUndoBesideAnotherSession: two sessions of one checkout side
// by side, the second started while the first ran. claudebox --undo
// undoes the last started, and with it, silently, what the first wrote
// after that (its file moved aside as the second's). It says so, in
// --undo --list and before it acts; a session alone says nothing of it.
func TestFirstDayUndoBesideAnotherSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "beside")
	h.GitRepo(proj)
	const beside = "claudebox: another session was running here when the session of "
	h.Inside(proj, nil, "sleep 1; echo alone > alone.txt")
	if out := h.RunBoth(proj, "claudebox", "--undo", "--dry-run"); !strings.Contains(out, "move aside alone.txt") || strings.Contains(out, beside) {
		t.Errorf("--undo of a session alone:\n%s", out)
	}
	_, out, exited := harness.StartSession(t, h, proj, "touch started; until [ -e done ]; do sleep 0.1; done; echo first > first.txt")
	h.Inside(proj, nil, "sleep 1; echo second > second.txt")
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the first session: %v\n%s", err, out)
	}
	dry := h.RunBoth(proj, "claudebox", "--undo", "--dry-run")
	if !strings.Contains(dry, "move aside first.txt (created)") || !strings.Contains(dry, "move aside second.txt (created)") {
		t.Fatalf("--undo --dry-run after two sessions side by side:\n%s", dry)
	}
	if !strings.Contains(dry, beside) || !strings.Contains(dry, "what it changed after that is undone too") {
		t.Errorf("--undo does not say it undoes the other session's changes too:\n%s", dry)
	}
	if list := h.Run(proj, nil, "claudebox", "--undo", "--list"); !strings.Contains(strings.SplitN(list, "\n", 2)[0], "(another session ran beside it)") {
		t.Errorf("--undo --list does not mark the snapshot:\n%s", list)
	}
}

// TestFirstDayContinueAfterHostClaude: a user who worked with claude in a
// project types claudebox -c there: claude inside began a new
// conversation (-p) or said only "No conversation found to continue", as
// the sandbox keeps its own history. The end says the host's
// conversations stay on the host and how to bring them in by hand (what
// they hold becomes readable inside: the user's choice, never made for
// them); the hint's command works, and then says nothing more.
func TestFirstDayContinueAfterHostClaude(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "hostconv")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-hostconv-0123456789abcd"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-hostconv")
	h.Run(proj, api.Env(key), "claude", "-p", "YESTERDAY-ON-THE-HOST")
	run := func() string {
		var stderr strings.Builder
		cmd := h.Command(proj, api.Env(key), "claudebox", "-c", "-p", "go on")
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox -c: %v\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	out := run()
	const note = "claudebox: claude's conversations in this folder on the host (1) are not the sandbox's"
	_, copyIn, found := strings.Cut(out, "where what they hold becomes readable, copy them in: ")
	if !strings.Contains(out, note) || !found {
		t.Fatalf("claudebox -c after claude on the host does not say where the conversation is:\n%s", out)
	}
	h.Run(proj, nil, "sh", "-c", strings.TrimSpace(copyIn))
	if out := run(); strings.Contains(out, note) {
		t.Errorf("the note again once the conversation was brought in:\n%s", out)
	}
	if bodies := api.Bodies(); !strings.Contains(bodies[len(bodies)-1], "YESTERDAY-ON-THE-HOST") {
		t.Errorf("claudebox -c did not continue the conversation brought in")
	}
}

// TestFirstDayHookDirectoryNamed: a hook in ~/.claude/settings.json that
// enters its directory to run its script (cd ~/hooks && ./notify.sh) ran
// on the host and failed inside, with no word of why: the directory is in
// the hidden home, and no path the command names is a program to show.
// The launch names the directory with --ro-bind, which makes it run.
func TestFirstDayHookDirectoryNamed(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "hookdir")
	h.GitRepo(proj)
	hooks := filepath.Join(h.Home, "hooks")
	h.Write(filepath.Join(hooks, "notify.sh"), "#!/bin/sh\necho HOOK-FROM-ITS-DIRECTORY-q7\n")
	h.Run(proj, nil, "chmod", "+x", filepath.Join(hooks, "notify.sh"))
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cd ~/hooks && ./notify.sh"}]}]}}`)
	const key = "sk-ant-test-key-hookdir-0123456789abcde"
	h.Onboarded(key, proj)
	run := func(args ...string) (string, *harness.FakeAPI) {
		api := harness.StartFakeAPI(t, "FAKE-REPLY-hookdir")
		var stderr strings.Builder
		cmd := h.Command(proj, api.Env(key), "claudebox", append(args, "-p", "hello")...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("claudebox %q: %v\n%s", args, err, stderr.String())
		}
		return stderr.String(), api
	}
	out, _ := run()
	if !strings.Contains(out, "claudebox: not shown inside: "+hooks+" (") || !strings.Contains(out, "--ro-bind "+hooks) {
		t.Errorf("the launch does not name the hook's directory:\n%s", out)
	}
	if _, api := run("--ro-bind", hooks); !api.Received("HOOK-FROM-ITS-DIRECTORY-q7") {
		t.Errorf("with --ro-bind %s the hook did not run", hooks)
	}
}

// TestFirstDayEndMessagesStartALine: a session whose last output ended no
// line (claude -p stopped with Ctrl-C prints "Execution error" and no
// newline) had claudebox's messages at its end glued to it:
// "Execution errorclaudebox: resume this session with: …". They start a
// line of their own.
func TestFirstDayEndMessagesStartALine(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "endline")
	h.GitRepo(proj)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "150", "-y", "30", "bash --norc --noprofile")
	tmux("send-keys", `claudebox --shell -c 'printf PARTIAL-LINE; printf "PATH=/x\n" > .env'`, "Enter")
	screen := harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "hint: if you changed one yourself") }, "the end's messages")
	if !strings.Contains(screen, "PARTIAL-LINE\nclaudebox: moved aside") {
		t.Errorf("the end's messages do not start a line of their own:\n%s", screen)
	}
}

// cursorLine is the lines of a screen that hold Claude Code's cursor
// (❯): a menu's, and the prompt's where it shows beside it.
func cursorLine(screen string) string {
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "❯") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
