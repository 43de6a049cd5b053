package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/paths"
)

// claude's -w/--worktree is found however it is written, with its name,
// and refused before the launch with what works instead; after --, or as
// a prompt's text, it is not claude's flag.
func TestClaudeWorktree(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		name  string
		found bool
	}{
		{[]string{"-w"}, "", true},
		{[]string{"-w", "feat"}, "feat", true},
		{[]string{"--worktree", "feat", "-p", "hi"}, "feat", true},
		{[]string{"--worktree=feat"}, "feat", true},
		{[]string{"-w", "--tmux"}, "", true},
		{[]string{"-p", "hi"}, "", false},
		{[]string{"--", "-w"}, "", false},
	} {
		name, found := claudeWorktree(tc.args)
		if name != tc.name || found != tc.found {
			t.Errorf("%q: %q %v, want %q %v", tc.args, name, found, tc.name, tc.found)
		}
	}
	if err := refuseClaudeWorktree([]string{"-w", "feat"}); err == nil || !strings.Contains(err.Error(), "does not work inside the sandbox") {
		t.Errorf("refuse: %v", err)
	}
}

// TestSandboxWorktreeOutside: git worktree add ../sibling inside fails at
// once, where before it landed in the private tmpfs and was lost at exit,
// leaving an entry in the host's repository; no entry is left, the host's
// git worktree list shows the project alone, and one made inside the
// project still works.
func TestSandboxWorktreeOutside(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	out := h.inside(proj, nil, `exec 2>&1
		git worktree add -q ../sibling && echo MADE-OUTSIDE
		git worktree add -q .wt/inside && echo MADE-INSIDE`)
	if strings.Contains(out, "MADE-OUTSIDE") || !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "MADE-INSIDE") {
		t.Errorf("inside:\n%s", out)
	}
	if paths.Exists(filepath.Join(proj, ".git", "worktrees", "sibling")) {
		t.Error("the failed worktree left an entry in the host's repository")
	}
	if out := h.run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Contains(out, "sibling") || strings.Contains(out, "prunable") || !strings.Contains(out, filepath.Join(proj, ".wt", "inside")) {
		t.Errorf("the host's git worktree list:\n%s", out)
	}
}
