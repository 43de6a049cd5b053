package mount

import (
	"slices"
	"strings"
)

// updaterOff is set in every sandbox, whatever the host says: Claude Code's
// background updater would replace the host's claude, whose files are
// read-only inside, and so fail in every session. The host's own claude
// keeps updating itself.
const updaterOff = "DISABLE_AUTOUPDATER"

// Environ is the environment the sandbox starts with: the plan's names with
// their values from lookup. It goes to exec's environment, never to argv.
func (p Plan) Environ(lookup func(string) (string, bool)) []string {
	env := make([]string, 0, len(p.Env)+2)
	env = append(env, updaterOff+"=1")
	if p.SSHAgent {
		env = append(env, "SSH_AUTH_SOCK="+SSHAgentSocket)
	}
	env = append(env, p.relayEnv()...)
	if p.Agent != nil {
		env = append(env, p.Agent.Env...)
	}
	env = append(env, p.SetEnv...)
	for _, n := range p.Env {
		if p.setByRelay(n) || p.fixed(n) || p.setByAgent(n) {
			continue
		}
		if n == "HOME" {
			// The home's real path, where the plan mounts it.
			env = append(env, "HOME="+p.Home)
		} else if v, ok := lookup(n); ok && n == "PATH" && p.gitWrapped() {
			env = append(env, "PATH="+gitWrapperDir+":"+v)
		} else if v, ok := lookup(n); ok && n != updaterOff {
			env = append(env, n+"="+v)
		}
	}
	return env
}

// fixed says the launch fixes name's value (SetEnv).
func (p Plan) fixed(name string) bool {
	for _, kv := range p.SetEnv {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// setByAgent says the agent's row sets name inside: it points the agent at
// the proxy and turns its own sandbox off, whatever the user passes.
func (p Plan) setByAgent(name string) bool {
	if p.Agent == nil {
		return false
	}
	for _, kv := range p.Agent.Env {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			return true
		}
	}
	return false
}

// gitWrapped says the plan puts its git wrapper inside.
func (p Plan) gitWrapped() bool {
	return slices.ContainsFunc(p.Mounts, func(m Mount) bool { return m.executable })
}
