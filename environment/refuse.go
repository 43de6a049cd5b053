package environment

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// The user's refuse-env patterns add to the identity list: a variable
// whose name one matches never passes, not even named with --env or in an
// env file, and the proxy does not use it either.

// ValidPattern says p is a refuse-env pattern: a variable's name with *
// standing for any characters.
func ValidPattern(p string) bool {
	return p != "" && ValidName(strings.ReplaceAll(p, "*", "X"))
}

// Refused says name matches one of patterns.
func Refused(name string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := path.Match(p, name)
		return ok
	})
}

// RefusedError says a variable the user asked to pass matches refuse-env.
type RefusedError struct{ Name, Pattern, From string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s names %s, which your refuse-env pattern %q keeps out of every sandbox", e.From, e.Name, e.Pattern)
}

// Refuse keeps what patterns match out of env: a --env (requested) or an
// env file's entry naming one is an error; a variable the allowlist
// passes, or the proxy would read, is dropped.
func Refuse(env Env, requested []string, files []File, patterns []string) (Env, error) {
	if len(patterns) == 0 {
		return env, nil
	}
	match := func(name string) string {
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				return p
			}
		}
		return ""
	}
	for _, r := range requested {
		n, _, _ := strings.Cut(r, "=")
		if p := match(n); p != "" {
			return env, &RefusedError{Name: n, Pattern: p, From: "--env"}
		}
	}
	for _, f := range files {
		for _, e := range f.Entries {
			if p := match(e.Name); p != "" {
				return env, &RefusedError{Name: e.Name, Pattern: p, From: f.Path}
			}
		}
	}
	env.Names = slices.DeleteFunc(slices.Clone(env.Names), func(n string) bool { return match(n) != "" })
	for _, m := range []map[string]string{env.Values, env.API, env.From} {
		for n := range m {
			if match(n) != "" {
				delete(m, n)
			}
		}
	}
	env.Dropped = slices.DeleteFunc(env.Dropped, func(n string) bool { return match(n) != "" })
	return env, nil
}
