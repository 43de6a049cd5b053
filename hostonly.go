package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/claudebox/claudebox/hint"
)

// hostOnly is a kind of Claude Code (2.1.330) command that is the host's
// to run: inside it would change what the sandbox shows read-only, or
// its own copy, lost at exit, while Claude says it did the work.
type hostOnly struct {
	// forms are the words that begin claude's arguments.
	forms [][]string
	// problem and fix are the error and its hint, each given the command
	// as typed (claude plugin install).
	problem, fix string
}

// hostOnlyCommands are refused before anything starts; made when a
// launch looks, not at every claudebox process's start.
var hostOnlyCommands = sync.OnceValue(func() []hostOnly {
	return []hostOnly{{
		// Claude Code's installation is read-only inside; a native build
		// installed into the sandbox's home would be gone at exit.
		forms:   commandForms(nil, "update", "upgrade", "install"),
		problem: "%s changes Claude Code's installation, which the sandbox shows read-only",
		fix:     "run it on the host: %s",
	}, {
		// ~/.claude.json inside is the sandbox's copy, which the next launch
		// replaces; the project's .mcp.json is read-only.
		forms:   commandForms([]string{"mcp"}, "add", "add-json", "add-from-claude-desktop"),
		problem: "%s inside would change only the sandbox's copy of ~/.claude.json, which the next launch replaces",
		fix:     "add it on the host, %s …, then claudebox --with-mcp NAME brings it in",
	}, {
		// ~/.claude's plugins are read-only inside (an install failed with
		// EROFS); what plugin init made in the sandbox's ~/.claude/skills was
		// gone at exit.
		forms:   append(commandForms([]string{"plugin"}, pluginChanges...), commandForms([]string{"plugins"}, pluginChanges...)...),
		problem: "%s changes ~/.claude, which inside is read-only or lost at exit",
		fix:     "run it on the host: %s …; the next claudebox loads what it changed",
	}, {
		// The sandbox never holds a login nor reaches the sign-in's token
		// exchange: Claude waited for a code from the browser.
		forms:   [][]string{{"auth", "login"}},
		problem: "%s inside cannot log you in: the sandbox never holds your login",
		fix:     "log in on the host: %s; claudebox then uses that login",
	}, {
		forms:   [][]string{{"setup-token"}},
		problem: "%s inside cannot make a token: the sandbox never holds your login",
		fix:     "run it on the host: %s; claudebox uses the token from CLAUDE_CODE_OAUTH_TOKEN",
	}}
})

// pluginChanges are the plugin commands that change ~/.claude's plugins,
// marketplaces or skills.
var pluginChanges = []string{"install", "i", "uninstall", "remove", "update", "prune", "autoremove", "init", "new", "marketplace add", "marketplace remove", "marketplace rm", "marketplace update"}

// commandForms are the commands of prefix's words followed by each of
// commands' words.
func commandForms(prefix []string, commands ...string) [][]string {
	var forms [][]string
	for _, c := range commands {
		forms = append(forms, append(slices.Clone(prefix), strings.Fields(c)...))
	}
	return forms
}

// refuseHostOnly says, before anything starts, that claude's arguments
// are a command the host is to run (hostOnlyCommands).
func refuseHostOnly(args []string) error {
	for _, h := range hostOnlyCommands() {
		for _, form := range h.forms {
			if len(args) >= len(form) && slices.Equal(args[:len(form)], form) {
				cmd := "claude " + strings.Join(form, " ")
				return hint.Errorf(fmt.Sprintf(h.fix, cmd), h.problem, cmd)
			}
		}
	}
	return nil
}
