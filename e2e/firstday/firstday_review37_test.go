package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay37HookLogOneHint: a user's UserPromptSubmit hook keeps a
// log of the prompts in ~/.claude, which inside is the sandbox's own.
// The end named the log with the way to keep it (have the hook write to
// a directory bound with --bind), then added "make the change on the
// host to keep it", which says nothing of a log a hook writes at every
// prompt: there is no change to make. A session that also changed a
// private copy of a file of the host's gets both hints.
func TestFirstDay37HookLogOneHint(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "hooklog37")
	h.GitRepo(proj)
	claudeDir := filepath.Join(h.Home, ".claude")
	script := filepath.Join(claudeDir, "hooks", "log-prompt.sh")
	h.Write(script, "#!/bin/sh\ncat >> \"$HOME/.claude/prompt-log.txt\"\n")
	h.Run(proj, nil, "chmod", "+x", script)
	h.Write(filepath.Join(claudeDir, "settings.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/log-prompt.sh"}]}]}}`+"\n")
	const key = "sk-ant-test-key-hooklog37-0123456789abc"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-hooklog37")
	const keepLog = "hint: what a hook writes in ~/.claude stays in the sandbox; to keep it, have the hook write to a directory you bind with --bind DIR"
	const makeChange = "hint: make the change on the host to keep it"

	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hello")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	out := stderr.String()
	if !strings.Contains(out, "  "+filepath.Join(claudeDir, "prompt-log.txt")+" (made in the sandbox's own ~/.claude, not in yours)") || !strings.Contains(out, keepLog) {
		t.Fatalf("the end does not name the hook's log with the way to keep it:\n%s", out)
	}
	if strings.Contains(out, makeChange) {
		t.Errorf("the end says to make a change on the host of what a hook wrote:\n%s", out)
	}

	// The session also edits the private copy of the user's settings:
	// that change is one to make on the host.
	stderr.Reset()
	cmd = h.Command(proj, api.Env(key), "claudebox", "--shell", "-c", `echo '{}' > ~/.claude/prompt-log.txt; echo '{"model": "opus"}' > ~/.claude/settings.json`)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	if out := stderr.String(); !strings.Contains(out, "  "+filepath.Join(claudeDir, "settings.json")+"\n") || !strings.Contains(out, keepLog) || !strings.Contains(out, makeChange) {
		t.Errorf("with a private copy changed too, the end does not give both hints:\n%s", out)
	}
}
