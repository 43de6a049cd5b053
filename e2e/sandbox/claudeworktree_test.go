package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxClaudeEnterWorktree: the real Claude Code's EnterWorktree,
// scripted through the fake API, makes its worktree inside (claudebox's
// hook: it failed at the read-only .claude, and past that at the
// .git/commondir claudebox stands), writes a file there, commits, and
// leaves it removed; another, left with no commit, goes with its branch. The host's repository has the commit on the branch
// worktree-feat, which the session's end names, and nothing else: its git
// worktree list shows the project alone, git status is clean, git gc
// works.
func TestSandboxClaudeEnterWorktree(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "wt")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-worktree-done",
		harness.ToolCall{Name: "EnterWorktree", Input: map[string]any{"name": "feat"}},
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "pwd && echo in-worktree > made.txt && git add made.txt && git -c user.name=c -c user.email=c@example.com commit -q -m from-worktree && git log -1 --format=%s", "description": "commit in the worktree"}},
		harness.ToolCall{Name: "ExitWorktree", Input: map[string]any{"action": "remove", "discard_changes": true}},
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "pwd && git worktree list --porcelain | grep -c '^worktree '", "description": "back"}},
		harness.ToolCall{Name: "EnterWorktree", Input: map[string]any{"name": "idle"}},
		// Claude Code cannot tell what a hook's worktree holds: it removes
		// one only when told to discard.
		harness.ToolCall{Name: "ExitWorktree", Input: map[string]any{"action": "remove", "discard_changes": true}},
	)
	var stdout, stderr strings.Builder
	c := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "Bash,EnterWorktree,ExitWorktree", "-p", "use the tools")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-worktree-done") {
		t.Fatalf("claude -p: %v, printed %q, want the final reply\n%s", err, stdout.String(), stderr.String())
	}
	// The branch is the session's work, named as any branch it made.
	if !strings.Contains(stderr.String(), filepath.Join(proj, ".git", "refs", "heads", "worktree-feat")) {
		t.Errorf("the session's end does not name the branch it made:\n%s", stderr.String())
	}
	results := api.ToolResults()
	if r := results["toolu_fake_0"]; !strings.HasPrefix(r, "Created worktree at") {
		t.Fatalf("EnterWorktree: %q", r)
	}
	if r := results["toolu_fake_1"]; r != "/run/claudebox/worktrees/feat\nfrom-worktree" {
		t.Errorf("the commit in the worktree: %q", r)
	}
	if r := results["toolu_fake_2"]; strings.HasPrefix(r, "ERROR") || strings.Contains(r, "could not remove") {
		t.Errorf("ExitWorktree: %q", r)
	}
	if r := results["toolu_fake_3"]; r != proj+"\n1" {
		t.Errorf("after ExitWorktree: %q, want the project and one worktree", r)
	}
	if log := h.Run(proj, nil, "git", "log", "-1", "--format=%s", "worktree-feat"); strings.TrimSpace(log) != "from-worktree" {
		t.Errorf("the host's worktree-feat is at %q", log)
	}
	// One removed with no commit of its own takes its branch with it.
	if r := results["toolu_fake_5"]; strings.HasPrefix(r, "ERROR") || strings.Contains(r, "could not remove") {
		t.Errorf("ExitWorktree of idle: %q", r)
	}
	if branches := h.Run(proj, nil, "git", "branch", "--list", "worktree-idle"); branches != "" {
		t.Errorf("worktree-idle, removed with no commit, is left: %q", branches)
	}
	if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("the host's git worktree list:\n%s", list)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("the host's git status:\n%s", st)
	}
	h.Run(proj, nil, "git", "gc", "-q")
	if entries, _ := os.ReadDir(filepath.Join(proj, ".git", "worktrees")); len(entries) != 0 {
		t.Errorf("the host's .git/worktrees holds %v", entries)
	}
}

// TestSandboxClaudeSubagentWorktree: a subagent with isolation: worktree
// works in a worktree of its own inside (it failed as EnterWorktree did)
// and commits there: the host's repository has its branch, and no
// worktree.
func TestSandboxClaudeSubagentWorktree(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "sub")
	h.GitRepo(proj)
	// The fake picks each turn by the results its conversation holds, the
	// subagent's as the main one's: each agent's first turn starts a
	// subagent (Claude Code nests a few), its second commits where it is,
	// the main one's too: the file holds where, so that the two commits
	// differ even when made in one second (else the subagent's branch is
	// the project's HEAD, merged, and goes at the session's end).
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-subagent-done",
		harness.ToolCall{Name: "Agent", Input: map[string]any{"description": "isolated", "prompt": "commit", "subagent_type": "general-purpose", "isolation": "worktree", "run_in_background": false}},
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "pwd > sub.txt && git add sub.txt && git -c user.name=c -c user.email=c@example.com commit -q -m from-subagent", "description": "commit"}},
	)
	out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "Bash,Agent", "-p", "use the tools")
	if !strings.Contains(out, "FAKE-REPLY-subagent-done") {
		t.Fatalf("claude -p printed %q, want the final reply", out)
	}
	if !api.Received("worktreePath: /run/claudebox/worktrees/agent-") {
		t.Errorf("no subagent reported a worktree: %q", api.ToolResults())
	}
	refs := h.Run(proj, nil, "git", "for-each-ref", "--format=%(refname:short) %(contents:subject)", "refs/heads/worktree-agent-*")
	if !strings.Contains(refs, " from-subagent\n") {
		t.Errorf("the host's subagents' branches:\n%s", refs)
	}
	if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("the host's git worktree list:\n%s", list)
	}
}

// TestSandboxClaudeSubagentWorktreeUnchanged: a subagent's worktree that
// got no commit (an Explore agent's) leaves no branch: Claude Code keeps
// a hook's worktree, and claudebox's SessionEnd hook removes it, and its
// branch where that holds no commit of its own.
func TestSandboxClaudeSubagentWorktreeUnchanged(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "explore")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-explored",
		harness.ToolCall{Name: "Agent", Input: map[string]any{"description": "look", "prompt": "look", "subagent_type": "Explore", "isolation": "worktree", "run_in_background": false}},
	)
	out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "Agent", "-p", "look around")
	if !strings.Contains(out, "FAKE-REPLY-explored") || !api.Received("worktreePath: /run/claudebox/worktrees/agent-") {
		t.Fatalf("the subagent did not work in a worktree: %q\n%q", out, api.ToolResults())
	}
	if refs := h.Run(proj, nil, "git", "for-each-ref", "refs/heads/worktree-*"); refs != "" {
		t.Errorf("branches left:\n%s", refs)
	}
}

// TestSandboxClaudeContinueAfterWorktree: a conversation that ended in a
// worktree of the session's (gone with it) continues in the project: the
// next session's Claude Code says the worktree no longer exists.
func TestSandboxClaudeContinueAfterWorktree(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cont")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-entered", harness.ToolCall{Name: "EnterWorktree", Input: map[string]any{"name": "feat"}})
	h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--allowedTools", "EnterWorktree", "-p", "enter")
	if r := api.ToolResults()["toolu_fake_0"]; !strings.HasPrefix(r, "Created worktree at") {
		t.Fatalf("EnterWorktree: %q", r)
	}
	next := harness.StartFakeAPI(t, "FAKE-REPLY-continued")
	out, err := h.Command(proj, next.Env("sk-ant-test-key"), "claudebox", "--continue", "-p", "again").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "FAKE-REPLY-continued") || !strings.Contains(string(out), "/run/claudebox/worktrees/feat for this session no longer exists") {
		t.Errorf("--continue: %v\n%s", err, out)
	}
}
