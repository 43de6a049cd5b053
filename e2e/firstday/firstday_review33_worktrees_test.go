package firstday

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayReview33ClaudeWorktreesInside: what a user meets of Claude
// Code's own worktrees inside (claude 2.1.330 against the fake API).
// EnterWorktree and a subagent's isolation: worktree make theirs in
// /run/claudebox/worktrees (claudebox's hook: they failed at the
// project's .claude, read-only inside); git worktree add under .claude
// fails there; none leaves a record in .git/worktrees or a link on the
// host. claudebox --worktree NAME (Claude Code's own flag) runs the
// session in the worktree the host makes.
func TestFirstDayReview33ClaudeWorktreesInside(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	const key = "sk-ant-test-key-worktrees-0123456789abc"
	for _, c := range []struct {
		name string
		call harness.ToolCall
		args []string
		want string
	}{
		{
			"enter",
			harness.ToolCall{Name: "EnterWorktree", Input: map[string]any{"name": "feat"}},
			nil,
			"Created worktree at “/run/claudebox/worktrees/feat”",
		},
		{
			"agent",
			harness.ToolCall{Name: "Agent", Input: map[string]any{"description": "isolated", "prompt": "say hi", "subagent_type": "general-purpose", "isolation": "worktree"}},
			nil,
			"Async agent launched successfully",
		},
		{
			"bash",
			harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "git worktree add .claude/worktrees/x -b x 2>&1", "description": "add"}},
			nil,
			"fatal: could not create leading directories of '.claude/worktrees/x/.git': Permission denied",
		},
		{
			"flag",
			harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "pwd", "description": "where"}},
			[]string{"--worktree", "flagged"},
			"%s-flagged",
		},
	} {
		proj := filepath.Join(h.Home, "code", c.name)
		h.GitRepo(proj)
		h.Onboarded(key, proj)
		api := harness.StartScriptedAPI(t, "FAKE-REPLY-worktrees", c.call)
		var stdout, stderr bytes.Buffer
		cmd := h.Command(proj, api.Env(key), "claudebox", append(c.args, "--permission-mode", "bypassPermissions", "-p", "hello")...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-worktrees") {
			t.Errorf("%s: %v\n%s%s", c.name, err, stdout.String(), stderr.String())
			continue
		}
		want := strings.ReplaceAll(c.want, "%s", proj)
		if got := api.ToolResults()["toolu_fake_0"]; !strings.Contains(got, want) {
			t.Errorf("%s: the tool's result is not %q:\n%s", c.name, want, got)
		}
		if c.name == "flag" {
			continue
		}
		if entries, err := os.ReadDir(filepath.Join(proj, ".git", "worktrees")); err != nil || len(entries) != 0 {
			t.Errorf("%s: .git/worktrees after the session: %v %v", c.name, entries, err)
		}
		if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
			t.Errorf("%s: git worktree list after the session:\n%s", c.name, list)
		}
	}
}
