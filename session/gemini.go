package session

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/proxy"
)

// googleTokenURLVariable, in claudebox's own environment on the host,
// replaces Google's token endpoint: for tests, which play it on 127.0.0.1.
// Nothing in a sandbox or a project can set it.
const googleTokenURLVariable = "CLAUDEBOX_GOOGLE_TOKEN_URL"

// FindAgentLogin finds the OAuth login of an agent's row that runs with
// one (Gemini's Google login, ~/.gemini/oauth_creds.json): the supervisor
// refreshes it, one session at a time, and the proxy injects it.
func FindAgentLogin(h Home, a agent.Agent) (*proxy.Credential, bool) {
	if a.LoginFile == "" {
		return nil, false
	}
	path := filepath.Join(h.Dir, a.ConfigDir, a.LoginFile)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	tokenURL := proxy.GoogleTokenURL
	if u := os.Getenv(googleTokenURLVariable); u != "" {
		tokenURL = u
	}
	return proxy.GoogleLogin(path, filepath.Join(h.State, "google-oauth-refresh.lock"), tokenURL), true
}
