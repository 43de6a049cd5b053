package main

import (
	"slices"

	"github.com/claudebox/claudebox/hint"
)

// claudeInstallCommands are Claude Code's (2.1.330) commands that change
// its own installation: update (upgrade) and install (the native build).
var claudeInstallCommands = []string{"update", "upgrade", "install"}

// refuseClaudeInstall says, before anything starts, that Claude Code's
// updates and installs are the host's to run: inside, its installation is
// read-only (what the host runs is not the sandbox's to change), and a
// native build installed into the sandbox's home would be gone at exit.
func refuseClaudeInstall(args []string) error {
	if len(args) > 0 && slices.Contains(claudeInstallCommands, args[0]) {
		return hint.Errorf("run it on the host: claude "+args[0], "claude %s changes Claude Code's installation, which the sandbox shows read-only", args[0])
	}
	return nil
}
