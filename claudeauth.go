package main

import (
	"github.com/claudebox/claudebox/hint"
)

// refuseClaudeLogin says, before anything starts, that Claude Code's
// logins are the host's to make (2.1.330: auth login, setup-token):
// inside, the sandbox never holds a login, its network does not reach
// the sign-in's token exchange, and what it signed in to would be gone at
// exit, while Claude waited for a code from the browser.
func refuseClaudeLogin(args []string) error {
	switch {
	case len(args) >= 2 && args[0] == "auth" && args[1] == "login":
		return hint.Errorf("log in on the host: claude auth login; claudebox then uses that login", "claude auth login inside cannot log you in: the sandbox never holds your login")
	case len(args) >= 1 && args[0] == "setup-token":
		return hint.Errorf("run it on the host: claude setup-token; claudebox uses the token from CLAUDE_CODE_OAUTH_TOKEN", "claude setup-token inside cannot make a token: the sandbox never holds your login")
	}
	return nil
}
