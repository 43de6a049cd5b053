package firstday

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay38AutoModeChecksReachAPI: auto mode, Claude Code's default
// permission mode, asks the API to check each tool call (the request's
// safeguards) and runs it once the API says it is safe. claudebox's
// proxy refused the key, which it did not know: Claude Code sent the
// request again without it and ran nothing unasked, saying "Auto mode
// can't check actions in this session … Your requests go through
// 127.0.0.1:3128 … ask whoever runs your gateway to pass it through"
// (-p: every action refused, exit status 1), where plain claude ran the
// command. The check reaches the API, and the command runs.
func TestFirstDay38AutoModeChecksReachAPI(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "automode38")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-automode38-0123456789abc"
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-automode38",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "echo AUTO-MODE-RAN-$((6*7))", "description": "run it"}})
	var stdout, stderr bytes.Buffer
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "--permission-mode", "auto", "run it")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if !api.Received(`"safeguards":[{"type":"dangerous_tool_use"`) {
		t.Errorf("auto mode's check did not reach the API; the session's log:\n%s", h.SessionLogs())
	}
	if got := api.ToolResults()["toolu_fake_0"]; err != nil || !strings.Contains(got, "AUTO-MODE-RAN-42") {
		t.Errorf("claudebox -p --permission-mode auto: %v, the command's result %q\n%s%s", err, got, stdout.String(), stderr.String())
	}
}
