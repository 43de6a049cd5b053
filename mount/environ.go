package mount

import (
	"fmt"
	"slices"
	"strings"
)

// updaterOff is set in every sandbox, whatever the host says: Claude Code's
// background updater would replace the host's claude, whose files are
// read-only inside, and so fail in every session. The host's own claude
// keeps updating itself.
const updaterOff = "DISABLE_AUTOUPDATER"

// pycachePrefix is set in every sandbox, whatever the host says: Python
// there keeps its bytecode caches in the sandbox's /tmp, not beside the
// project's sources, where the host's python would run them and where the
// exit audit takes every one the session wrote for a finding.
const pycachePrefix = "PYTHONPYCACHEPREFIX"

// An envVar is one variable the sandbox starts with, as the plan knows it:
// its value itself, or where the launch takes it from.
type envVar struct {
	name  string
	value string // the value, for a literal
	from  envFrom
}

// envFrom is where a variable's value comes from.
type envFrom int

const (
	literal    envFrom = iota // value, fixed by the plan
	caller                    // the launching environment's variable of the same name
	callerFile                // the same, read from a NAME=VALUE file by the script
	callerPath                // the launching PATH, behind the git wrapper's directory
)

// environment is the one list of the variables the sandbox starts with, in
// order, which both the launch's exec (Environ) and --dry-run's script
// (Script) write: the script is the exact command only as long as they
// read the same list.
func (p Plan) environment() []envVar {
	vars := []envVar{{name: updaterOff, value: "1"}, {name: pycachePrefix, value: "/tmp/pycache"}}
	if p.SSHAgent {
		vars = append(vars, envVar{name: "SSH_AUTH_SOCK", value: SSHAgentSocket})
	}
	var fixed []string
	fixed = append(fixed, p.relayEnv()...)
	fixed = append(fixed, p.SetEnv...)
	if p.Agent != nil {
		fixed = append(fixed, p.Agent.Env...)
	}
	for _, kv := range fixed {
		name, value, _ := strings.Cut(kv, "=")
		vars = append(vars, envVar{name: name, value: value})
	}
	for _, n := range p.Env {
		switch {
		case n == updaterOff || n == pycachePrefix || p.setByRelay(n) || p.fixed(n) || p.setByAgent(n):
		case n == "HOME":
			// The home's real path, where the plan mounts it.
			vars = append(vars, envVar{name: n, value: p.Home})
		case n == "PATH" && p.gitWrapped():
			vars = append(vars, envVar{name: n, from: callerPath})
		case p.envSetBy[n].lines:
			vars = append(vars, envVar{name: n, from: callerFile})
		default:
			vars = append(vars, envVar{name: n, from: caller})
		}
	}
	return vars
}

// Environ is the environment the sandbox starts with: the plan's names with
// their values from lookup. It goes to exec's environment, never to argv.
func (p Plan) Environ(lookup func(string) (string, bool)) []string {
	vars := p.environment()
	env := make([]string, 0, len(vars))
	for _, v := range vars {
		if v.from == literal {
			env = append(env, v.name+"="+v.value)
		} else if value, ok := lookup(v.name); ok && v.from == callerPath {
			env = append(env, v.name+"="+gitWrapperDir+":"+value)
		} else if ok {
			env = append(env, v.name+"="+value)
		}
	}
	return env
}

// scriptEnv writes the environment as the script's env -i arguments: the
// literal values, and the launching shell's variables by reference, so
// that it prints no value the plan does not fix.
func (p Plan) scriptEnv(b *strings.Builder) {
	b.WriteString("env -i")
	for _, v := range p.environment() {
		switch v.from {
		case literal:
			b.WriteString(" " + v.name + "=" + Quote(v.value))
		case callerFile:
			// Read from the file, so the script is exact and prints no value.
			fmt.Fprintf(b, ` %s="$(sed -n 's/^[[:space:]]*\(export[[:space:]]*\)\{0,1\}%s=//p' %s | tail -n 1)"`, v.name, v.name, Quote(p.envSetBy[v.name].file))
		case callerPath:
			b.WriteString(` PATH="` + gitWrapperDir + `:$PATH"`)
		default:
			b.WriteString(" " + v.name + `="$` + v.name + `"`)
		}
	}
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
	return slices.ContainsFunc(p.Mounts, func(m Mount) bool { return m.Dest == gitWrapperDir+"/git" })
}
