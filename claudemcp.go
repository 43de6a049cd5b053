package main

import (
	"slices"

	"github.com/claudebox/claudebox/hint"
)

// claudeMCPAdds are Claude Code's (2.1.330) commands that add MCP servers
// to ~/.claude.json, or to the project's .mcp.json with --scope project.
var claudeMCPAdds = []string{"add", "add-json", "add-from-claude-desktop"}

// refuseClaudeMCPAdd says, before anything starts, that claude mcp add is
// the host's to run: inside, ~/.claude.json is the sandbox's copy, which
// the next launch replaces (a server of the user scope is gone at once,
// one of the local scope stays inside alone), while Claude says it
// modified ~/.claude.json; the project's .mcp.json, which the host's
// claude obeys, is read-only.
func refuseClaudeMCPAdd(args []string) error {
	if len(args) < 2 || args[0] != "mcp" || !slices.Contains(claudeMCPAdds, args[1]) {
		return nil
	}
	return hint.Errorf("add it on the host, claude mcp "+args[1]+" …, then claudebox --with-mcp NAME brings it in",
		"claude mcp %s inside would change only the sandbox's copy of ~/.claude.json, which the next launch replaces", args[1])
}
