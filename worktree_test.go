package main

import (
	"strings"
	"testing"
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
