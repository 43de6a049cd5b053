package mount

import (
	"fmt"
	"sort"
	"strings"
)

// allowedEnv are passed in when set: what a terminal program needs, and
// what Claude Code reads for its own configuration.
var allowedEnv = []string{
	"HOME", "USER", "LOGNAME", "PATH", "TERM", "COLORTERM", "LANG", "TZ", "EDITOR",
	"CLOUD_ML_REGION", "AWS_REGION", // region switches of the Vertex and Bedrock providers
}

// allowedEnvPrefixes are passed in when set. CLAUDE_CODE_ covers the
// Bedrock and Vertex switches (CLAUDE_CODE_USE_BEDROCK, …).
var allowedEnvPrefixes = []string{"LC_", "ANTHROPIC_", "CLAUDE_CODE_", "DISABLE_"}

// Environment lists the names of the variables the sandbox gets: the
// allowlist, then the names the user asked for, each once and only if set.
// A name the user asked for that is not set is an error, since silently
// dropping it would hide a typo.
func Environment(environ, requested []string) ([]string, error) {
	set := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	var names []string
	seen := map[string]bool{}
	addName := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range allowedEnv {
		if set[n] {
			addName(n)
		}
	}
	var prefixed []string
	for n := range set {
		for _, p := range allowedEnvPrefixes {
			if strings.HasPrefix(n, p) {
				prefixed = append(prefixed, n)
				break
			}
		}
	}
	sort.Strings(prefixed)
	for _, n := range prefixed {
		addName(n)
	}
	for _, n := range requested {
		if !validName(n) {
			return nil, fmt.Errorf("--env %q: not a variable name", n)
		}
		if !set[n] {
			return nil, fmt.Errorf("--env %s: %s is not set", n, n)
		}
		addName(n)
	}
	return names, nil
}

func validName(n string) bool {
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	return strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// Environ is the environment the sandbox starts with: the plan's names with
// their values from lookup. It goes to exec's environment, never to argv.
func (p Plan) Environ(lookup func(string) (string, bool)) []string {
	env := make([]string, 0, len(p.Env))
	for _, n := range p.Env {
		if v, ok := lookup(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}
