// Package environment works out the variables a sandbox starts with: an
// allowlist of what a terminal program and Claude Code need, the env files,
// and what the user names with --env. Values stay here, out of the plan, so
// that nothing that prints a plan can print one.
package environment

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// allowedEnv are passed in when set: what a terminal program needs, and
// what Claude Code reads for its own configuration.
var allowedEnv = []string{
	"HOME", "USER", "LOGNAME", "PATH", "TERM", "COLORTERM", "LANG", "TZ", "EDITOR",
	"CLOUD_ML_REGION", "AWS_REGION", // region switches of the Vertex and Bedrock providers
}

// toolchainEnv are passed in when set: where a toolchain is and how it
// builds (paths, module patterns, flags), so that builds inside are the
// host's. None is meant to hold a secret, but a proxy's or an index's URL
// can embed one (GOPROXY=https://user:token@host, as GOSUMDB): a value
// that names a URL's user passes only on request (--env). KUBECONFIG
// names files only; what it names under ~/.kube stays hidden.
var toolchainEnv = []string{
	"JAVA_HOME", "GOROOT", "GOPATH", "GOBIN", "GOFLAGS", "GOPRIVATE", "GONOSUMDB", "GONOPROXY",
	"GOPROXY", "GOSUMDB", "GOINSECURE", "GOTOOLCHAIN", "CGO_ENABLED",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT",
	"NVM_DIR", "GRADLE_USER_HOME", "MAVEN_HOME", "M2_HOME", "KUBECONFIG",
	// The host's own proxy, for the host's network; the filtered one sets
	// its own in their place.
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
}

// namesURLUser reports whether v holds a URL with a user (and so perhaps
// a password or token) in it.
func namesURLUser(v string) bool {
	_, rest, ok := strings.Cut(v, "://")
	return ok && strings.Contains(rest, "@")
}

// quietEnv are dropped without a word: the shell's and the desktop
// session's own plumbing, which means nothing inside.
var quietEnv = []string{
	"PWD", "OLDPWD", "SHLVL", "_", "SHELL", "TMPDIR", "MAIL", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
	"SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "GPG_AGENT_INFO", "LS_COLORS", "LESSOPEN", "LESSCLOSE",
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "VTE_VERSION",
	"MOTD_SHOWN", "DESKTOP_SESSION", "SESSION_MANAGER", "WINDOWID", "SHELL_SESSION_ID",
}

// quietEnvPrefixes are dropped without a word, as quietEnv; CLAUDEBOX_
// are claudebox's own, read on the host.
var quietEnvPrefixes = []string{"CLAUDEBOX_", "XDG_", "GNOME_", "KDE_", "KITTY_", "ITERM_", "WT_", "KONSOLE_", "GDM", "QT_", "GTK_", "BASH_FUNC_"}

// secretLooking reports whether a variable's name says it holds a
// credential: a dropped one is not named, so as not to point at it.
func secretLooking(name string) bool {
	if identityEnv[name] {
		return true
	}
	for _, w := range []string{"TOKEN", "SECRET", "PASSW", "CREDENTIAL", "KEY", "AUTH", "COOKIE"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// allowedEnvPrefixes are passed in when set. CLAUDE_CODE_ covers the
// Bedrock and Vertex switches (CLAUDE_CODE_USE_BEDROCK, …).
var allowedEnvPrefixes = []string{"LC_", "ANTHROPIC_", "CLAUDE_CODE_", "DISABLE_"}

// APIVariables point Claude Code at its API and authenticate it. Inside,
// claudebox sets them itself (the proxy's address and a phantom
// credential), so none is ever passed in: the user's values, from the
// host's environment, their own env settings or --env, are read by the
// proxy outside (Env.API); a project's are dropped, since a project must
// not choose where the user's credential goes. The other agents' (package
// agent) are among them, whichever agent a sandbox runs.
var APIVariables = []string{
	"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY",
	"CODE_ASSIST_ENDPOINT", "GOOGLE_CLOUD_ACCESS_TOKEN",
}

// Env is what the sandbox's environment is made of. Values set by env files
// are kept here, out of the Plan, so that nothing that prints a plan can
// print one.
type Env struct {
	// Names are the variables passed in, in order.
	Names []string
	// From names the env file a variable comes from, for those that come
	// from one rather than from the allowlist or --env.
	From map[string]string
	// Values holds the values env files (NAME=VALUE lines) and --env
	// NAME=VALUE set.
	Values map[string]string
	// Own marks the names whose file is the user's own configuration: they
	// need no approval. Lines marks those whose file is one NAME=VALUE per
	// line.
	Own, Lines map[string]bool
	// API holds the user's values of APIVariables, for the proxy: the
	// host's, overridden by their own env settings, then --env NAME=VALUE.
	API map[string]string
	// Dropped names, sorted, the host's variables that do not pass, for
	// the launch to say how to pass them: not the shell's plumbing, and
	// none whose name says it holds a credential.
	Dropped []string
}

// APILookup reads the user's value of one of APIVariables.
func (e Env) APILookup(name string) (string, bool) {
	v, ok := e.API[name]
	return v, ok
}

// identityEnv are variables that carry an identity beyond Claude's own: a
// token in one lets the sandbox act as the user elsewhere (push to their
// repositories, reach their cloud accounts). They pass only when the user
// names them on the command line.
var identityEnv = map[string]bool{
	"GITHUB_TOKEN": true, "GH_TOKEN": true, "GH_ENTERPRISE_TOKEN": true, "GITHUB_ENTERPRISE_TOKEN": true,
	"GITLAB_TOKEN": true, "GL_TOKEN": true, "BITBUCKET_TOKEN": true,
	"AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true,
	"GOOGLE_APPLICATION_CREDENTIALS": true, "AZURE_CLIENT_SECRET": true,
	"NPM_TOKEN": true, "NODE_AUTH_TOKEN": true, "HF_TOKEN": true, "VAULT_TOKEN": true,
}

// IdentityError says an env file would pass an identity token.
type IdentityError struct{ Name, file string }

func (e *IdentityError) Error() string {
	return fmt.Sprintf("%s would pass %s into the sandbox: an identity token passes only when you name it yourself", e.file, e.Name)
}

// Resolve works out the variables the sandbox gets: the allowlist, then
// the env files' (user's first, then the project's: a later line wins),
// then the user's --env NAME (the host's value) and --env NAME=VALUE, each
// once. A --env name that is not set is an error, since silently dropping it
// would hide a typo; an env file naming an unset variable passes nothing.
func Resolve(environ, requested []string, files []File) (Env, error) {
	set := map[string]bool{}
	values := map[string]string{}
	env := Env{From: map[string]string{}, Values: map[string]string{}, Own: map[string]bool{}, Lines: map[string]bool{}, API: map[string]string{}}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		set[name] = true
		values[name] = value
		if slices.Contains(APIVariables, name) {
			env.API[name] = value
		}
	}
	seen := map[string]bool{}
	addName := func(n string) {
		if slices.Contains(APIVariables, n) {
			return
		}
		if !seen[n] {
			seen[n] = true
			env.Names = append(env.Names, n)
		}
	}
	for _, n := range allowedEnv {
		if set[n] {
			addName(n)
		}
	}
	for _, n := range toolchainEnv {
		if set[n] && !namesURLUser(values[n]) {
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
	explicit := map[string]bool{}
	given := map[string]string{} // --env NAME=VALUE
	var requestedNames []string
	for _, r := range requested {
		n, value, hasValue := strings.Cut(r, "=")
		if !ValidName(n) {
			return Env{}, fmt.Errorf("--env %q: not a variable name", r)
		}
		if hasValue {
			given[n] = value
		} else if !set[n] {
			return Env{}, fmt.Errorf("--env %s: %s is not set", n, n)
		}
		explicit[n] = true
		requestedNames = append(requestedNames, n)
	}
	for _, f := range files {
		for _, e := range f.Entries {
			if explicit[e.Name] || !e.Set && !set[e.Name] {
				continue
			}
			if slices.Contains(APIVariables, e.Name) {
				if f.Own && e.Set {
					env.API[e.Name] = e.Value
				}
				continue
			}
			if identityEnv[e.Name] && !f.Own {
				return Env{}, &IdentityError{e.Name, f.Path}
			}
			env.From[e.Name] = f.Path
			env.Own[e.Name] = f.Own
			env.Lines[e.Name] = f.lines
			delete(env.Values, e.Name)
			if e.Set {
				env.Values[e.Name] = e.Value
			}
			addName(e.Name)
		}
	}
	for _, n := range requestedNames {
		if slices.Contains(APIVariables, n) {
			if v, ok := given[n]; ok {
				env.API[n] = v
			}
			continue
		}
		addName(n)
		delete(env.Values, n)
		if v, ok := given[n]; ok {
			env.Values[n] = v
		}
	}
	for n := range set {
		quiet := slices.Contains(quietEnv, n) || slices.ContainsFunc(quietEnvPrefixes, func(p string) bool { return strings.HasPrefix(n, p) })
		if !seen[n] && !quiet && !slices.Contains(APIVariables, n) && !secretLooking(n) && ValidName(n) {
			env.Dropped = append(env.Dropped, n)
		}
	}
	sort.Strings(env.Dropped)
	return env, nil
}

// ValidName says n can name an environment variable.
func ValidName(n string) bool {
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	return strings.Trim(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}
