package main

import (
	"slices"
	"strings"

	"github.com/claudebox/claudebox/hint"
)

// claudePluginChanges are Claude Code's (2.1.330) plugin commands that
// change ~/.claude's plugins, marketplaces or skills, each as its words
// after plugin.
var claudePluginChanges = [][]string{
	{"install"},
	{"i"},
	{"uninstall"},
	{"remove"},
	{"update"},
	{"prune"},
	{"autoremove"},
	{"init"},
	{"new"},
	{"marketplace", "add"},
	{"marketplace", "remove"},
	{"marketplace", "rm"},
	{"marketplace", "update"},
}

// refuseClaudePluginChange says, before anything starts, that claude
// plugin install (and the others that change the plugins) is the host's
// to run: inside, ~/.claude's plugins are read-only, as the host's claude
// loads them (an install or a marketplace's removal failed with EROFS),
// and what is made in the sandbox's own ~/.claude is lost at exit
// (plugin init said it created a plugin in ~/.claude/skills).
func refuseClaudePluginChange(args []string) error {
	if len(args) < 2 || args[0] != "plugin" && args[0] != "plugins" {
		return nil
	}
	for _, words := range claudePluginChanges {
		if len(args) > len(words) && slices.Equal(args[1:1+len(words)], words) {
			cmd := "claude plugin " + strings.Join(words, " ")
			return hint.Errorf("run it on the host: "+cmd+" …; the next claudebox loads what it changed",
				"%s changes ~/.claude, which inside is read-only or lost at exit", cmd)
		}
	}
	return nil
}
