package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxClaudeTools drives the real Claude Code's tools in the real
// sandbox through a scripted fake API, and checks each from the host: Bash
// writes in the project, Write and Edit change files, a git commit lands,
// and Read of a host secret fails because the sandbox hides it. It does so
// with Claude Code's own sandbox off, and turned on in the user's or the
// project's settings, which inside claudebox would make every Bash command
// fail (its nested bwrap needs a user namespace, which claudebox refuses):
// the private copies have it off, the host's files stay as they were.
//
// --allowedTools is the least that lets these calls run in -p mode
// (measured: without it, or with --permission-mode acceptEdits, the commit
// and the Read outside the project are refused for want of approval).
func TestSandboxClaudeTools(t *testing.T) {
	harness.RequireClaude(t)
	// Without socat Claude Code's sandbox does not start at all and Bash
	// runs unsandboxed, so the case that breaks would pass regardless.
	harness.RequireTool(t, "socat", "apt-get install socat")
	const innerOn = `{"sandbox": {"enabled": true, "failIfUnavailable": true}}` + "\n"
	for name, settings := range map[string]struct{ user, project string }{
		"inner-sandbox-unset":      {},
		"inner-sandbox-in-user":    {user: innerOn},
		"inner-sandbox-in-project": {project: innerOn},
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "tools")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, "edit.txt"), "old line\n")
			secret := filepath.Join(h.Home, ".ssh", "id_ed25519")
			h.Write(secret, "SECRET-KEY-3b7f\n")
			userSettings := filepath.Join(h.Home, ".claude", "settings.json")
			projectSettings := filepath.Join(proj, ".claude", "settings.json")
			if settings.user != "" {
				h.Write(userSettings, settings.user)
			}
			if settings.project != "" {
				h.Write(projectSettings, settings.project)
			}
			api := harness.StartScriptedAPI(t, "FAKE-REPLY-tools-done",
				harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "echo bash-ran > bash.txt && cat bash.txt", "description": "write a file"}},
				harness.ToolCall{Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "written.txt"), "content": "written by Write\n"}},
				harness.ToolCall{Name: "Edit", Input: map[string]any{"file_path": filepath.Join(proj, "edit.txt"), "old_string": "old line", "new_string": "edited line"}},
				harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "git add bash.txt written.txt edit.txt && git -c user.name=c -c user.email=c@example.com commit -q -m from-claude-tools", "description": "commit"}},
				harness.ToolCall{Name: "Read", Input: map[string]any{"file_path": secret}},
			)
			out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "Bash,Write,Edit,Read", "-p", "use the tools")
			if !strings.Contains(out, "FAKE-REPLY-tools-done") {
				t.Fatalf("claude -p printed %q, want the final reply", out)
			}
			results := api.ToolResults()
			for i, step := range []string{"Bash", "Write", "Edit", "Bash commit"} {
				if r := results[fmt.Sprintf("toolu_fake_%d", i)]; strings.HasPrefix(r, "ERROR") || r == "" {
					t.Errorf("%s: tool result %q", step, r)
				}
			}
			for file, want := range map[string]string{
				"bash.txt":    "bash-ran\n",
				"written.txt": "written by Write\n",
				"edit.txt":    "edited line\n",
			} {
				if b, _ := os.ReadFile(filepath.Join(proj, file)); string(b) != want {
					t.Errorf("the host's %s = %q, want %q", file, b, want)
				}
			}
			if log := h.Run(proj, nil, "git", "log", "-1", "--format=%s"); strings.TrimSpace(log) != "from-claude-tools" {
				t.Errorf("the host's git log shows %q, want the sandbox's commit", log)
			}
			if r := results["toolu_fake_4"]; !strings.HasPrefix(r, "ERROR") || !strings.Contains(r, "does not exist") {
				t.Errorf("Read of %s: tool result %q, want that it does not exist", secret, r)
			}
			if api.Received("SECRET-KEY-3b7f") {
				t.Error("the secret reached the API")
			}
			for path, want := range map[string]string{userSettings: settings.user, projectSettings: settings.project} {
				if b, err := os.ReadFile(path); want != "" && string(b) != want || want == "" && err == nil {
					t.Errorf("the host's %s = %q, want it as it was", path, b)
				}
			}
		})
	}
}
