package mount

import "strings"

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
	env = append(env, p.SetEnv...)
	for _, n := range p.Env {
		if p.setByRelay(n) || p.fixed(n) {
			continue
		}
		if n == "HOME" {
			// The home's real path, where the plan mounts it.
			env = append(env, "HOME="+p.Home)
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
