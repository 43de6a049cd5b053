package main

import (
	"strings"

	"github.com/claudebox/claudebox/hint"
)

// claudeWorktree finds claude's -w/--worktree [NAME] among its arguments:
// found, with the name when one is given.
func claudeWorktree(args []string) (name string, found bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", false
		case a == "-w" || a == "--worktree":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				name = args[i+1]
			}
			return name, true
		case strings.HasPrefix(a, "--worktree="):
			return strings.TrimPrefix(a, "--worktree="), true
		}
	}
	return "", false
}

// refuseClaudeWorktree says, before anything starts, that claude's own
// --worktree fails inside the sandbox (Claude Code 2.1.330 refuses a
// repository whose .git it cannot confirm belongs to the folder, and the
// sandbox's .git is a mount), and what works instead: a worktree made on
// the host, where claudebox starts as in any checkout and shares the
// project's instance, or one made inside the project.
func refuseClaudeWorktree(args []string) error {
	name, found := claudeWorktree(args)
	if !found {
		return nil
	}
	if name == "" {
		name = "NAME"
	}
	return hint.Errorf("make it on the host and start there: git worktree add ../"+name+" && cd ../"+name+" && claudebox (its sessions stay this project's); or, inside a session, git worktree add .worktrees/"+name,
		"claude --worktree does not work inside the sandbox: Claude Code cannot confirm that the repository's .git belongs to the folder, as claudebox mounts it to protect it")
}
