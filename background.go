package main

import (
	"slices"

	"github.com/claudebox/claudebox/hint"
)

// claudeBackground are Claude Code's (2.1.330) ways into its background
// sessions: the flag that starts one, and the commands that reach one.
var (
	claudeBackgroundFlags    = []string{"--bg", "--background"}
	claudeBackgroundCommands = []string{"attach", "agents", "logs", "stop", "kill", "rm", "respawn"}
)

// refuseClaudeBackground says, before anything starts, that Claude Code's
// background sessions cannot work in claudebox: one started inside would
// be torn down with the sandbox when claude exits, and one on the host is
// not this sandbox's to reach. The sandbox's claude does not offer "move
// to background" (mount.Build turns it off).
func refuseClaudeBackground(args []string) error {
	if len(args) > 0 && slices.Contains(claudeBackgroundCommands, args[0]) ||
		slices.ContainsFunc(args, func(a string) bool { return slices.Contains(claudeBackgroundFlags, a) }) {
		return hint.Errorf("run claudebox in a terminal of its own (a tmux window), or claudebox -p PROMPT & for a print run",
			"Claude Code's background sessions do not work in claudebox: the sandbox ends when claude exits, and nothing outside it could attach")
	}
	return nil
}
