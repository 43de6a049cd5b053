package firstday

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestFirstDay38ClaudeDirSavesAnswers: a project whose team commits
// .claude/settings.json, its own settings.local.json not yet made. In
// it, Claude Code could save neither the answer to .mcp.json's server
// ("one or more of your MCP server choices could not be saved (check
// permissions on .claude/settings.local.json)"; the server was never
// loaded, its tool "No such tool available", and the question came
// again at each launch) nor a "Yes, and don't ask again" ("Couldn't
// save this change … Check that the file holds valid JSON and that you
// can write to it and its folder"), which --keep-permissions then never
// saw: it writes a settings file through a temporary file beside it,
// which the read-only .claude refuses with EROFS, on which it gives up.
// Both are saved into the private copy, the server is loaded, and the
// end names the copy with the rule and the answer, as in a project
// without .claude.
func TestFirstDay38ClaudeDirSavesAnswers(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "teamdir38")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".claude", "settings.json"), `{"permissions": {"deny": ["Read(./secrets/**)"]}}`+"\n")
	h.Write(filepath.Join(proj, "srv.sh"), harness.MCPServerScript)
	h.Run(proj, nil, "chmod", "+x", filepath.Join(proj, "srv.sh"))
	h.Write(filepath.Join(proj, ".mcp.json"), `{"mcpServers":{"local":{"command":"./srv.sh"}}}`+"\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "team settings")
	const key = "sk-ant-test-key-teamdir38-0123456789abcd"
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-teamdir38",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "git -c user.name=c -c user.email=c@example.com commit -q --allow-empty -m asked38", "description": "commit"}},
		harness.ToolCall{Name: "mcp__local__ping", Input: map[string]any{}})
	stderr := filepath.Join(h.Base, "stderr")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "150", "-y", "40", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox --permission-mode default 2>"+stderr+"; sleep 60")
	const mcpQuestion = "New MCP server found in this project: local"
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, mcpQuestion) }, "claude's question of the project's server")
	harness.Choose(t, tmux, "Use this MCP server", func(s string) bool { return !strings.Contains(s, mcpQuestion) }, "the server used")
	const notSaved = "could not be saved"
	const question = "Yes, and don’t ask again for:"
	// Enter is pressed again where the screen stays as it was (the
	// prompt still holding the text: an Enter sent as the server's
	// question closed was lost).
	harness.Type(t, tmux, "run it")
	screen := harness.Press(t, tmux, func(s string) bool { return strings.Contains(s, question) || strings.Contains(s, notSaved) }, "the permission question", "Enter")
	if strings.Contains(screen, notSaved) {
		t.Fatalf("claude could not save the answer to the project's server:\n%s", screen)
	}
	const reply = "FAKE-REPLY-teamdir38"
	harness.Choose(t, tmux, question, func(s string) bool { return !strings.Contains(s, question) }, "the rule taken")
	// The server's tool asks (on main its server was not loaded, and the
	// reply came at once).
	screen = harness.WaitScreen(t, tmux, func(s string) bool {
		return strings.Contains(s, "(MCP)") && strings.Contains(s, "1. Yes") || strings.Contains(s, reply)
	}, "the server's tool asking, or the reply")
	if !strings.Contains(screen, reply) {
		harness.Choose(t, tmux, "1. Yes", func(s string) bool { return strings.Contains(s, reply) }, "the reply")
	}
	if got := api.ToolResults(); !strings.Contains(got["toolu_fake_1"], "MCP-PONG") || strings.Contains(got["toolu_fake_0"], "ERROR") {
		t.Errorf("the rule's command or the server's tool: %q", got)
	}
	if s := tmux("capture-pane", "-p", "-S", "-200"); strings.Contains(s, "Couldn't save") || strings.Contains(s, notSaved) {
		t.Errorf("claude could not save:\n%s", s)
	}
	harness.Type(t, tmux, "/exit")
	tmux("send-keys", "Enter")
	var said []byte
	for deadline := time.Now().Add(60 * time.Second); !bytes.Contains(said, []byte("each session reads")); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("claudebox's end said:\n%s", said)
		}
		said, _ = os.ReadFile(stderr)
	}
	local := filepath.Join(proj, ".claude", "settings.local.json")
	if !bytes.Contains(said, []byte("  "+local+" (1 permission rule: claudebox --keep-permissions) (your answer to the project's MCP servers)\n")) {
		t.Errorf("the end does not name the rule and the answer saved:\n%s", said)
	}
	for _, p := range []string{local, filepath.Join(proj, ".claude", ".cc-writes")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is on the host after the session", p)
		}
	}
}
