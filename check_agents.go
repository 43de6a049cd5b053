package main

import (
	"os"
	"os/exec"
	"strings"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/session"
)

// checkAgents says, for each other agent installed, whether its login was
// found, which the proxy will inject for claudebox --agent NAME.
func checkAgents(h session.Home) []checkResult {
	var results []checkResult
	for _, a := range agent.All {
		if a.IsClaude() {
			continue
		}
		path, err := exec.LookPath(a.Program)
		if err != nil {
			continue
		}
		a = a.ForHost(h.Dir, os.LookupEnv)
		if cred, ok := a.FindKey(h.Dir, os.LookupEnv); ok {
			results = append(results, checkResult{a.Name, "ok", path + "; its API key (" + cred.Source + ") is injected by the proxy for claudebox --agent " + a.Name, ""})
			continue
		}
		if cred, ok := a.FindLogin(h.Dir, h.State, ""); ok {
			results = append(results, checkResult{a.Name, "ok", path + "; its login (" + cred.Source + ") is injected by the proxy for claudebox --agent " + a.Name + ", and refreshed on the host", ""})
			continue
		}
		if a.LoginFile != "" {
			results = append(results, checkResult{a.Name, "warn", path + "; its settings choose a login that is not there (~/" + a.ConfigDir + "/" + a.LoginFile + "), so claudebox --agent " + a.Name + " cannot start", "log in on the host: run " + a.Program})
			continue
		}
		results = append(results, checkResult{
			a.Name, "warn", path + "; no login found, so claudebox --agent " + a.Name + " cannot start",
			"log it in on the host (run " + a.Program + "), or export " + a.Key.Variable(),
		})
	}
	return results
}

// checkRefused names the shell's variables the user's refuse-env patterns
// keep out of every sandbox.
func checkRefused(s *session.Session) []checkResult {
	names := s.Refused()
	if len(names) == 0 {
		return nil
	}
	return []checkResult{{"refuse-env", "ok", "kept out of every sandbox, even with --env: " + strings.Join(names, ", "), ""}}
}
