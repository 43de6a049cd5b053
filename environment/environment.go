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
	"unicode"

	"github.com/claudebox/claudebox/internal/credential"
)

// allowedEnv are passed in when set: what a terminal program needs, each
// locale category by name (no prefix: a name that merely starts like one
// is not one).
var allowedEnv = []string{
	"HOME", "USER", "LOGNAME", "PATH", "TERM", "COLORTERM", "LANG", "LANGUAGE", "TZ", "EDITOR",
	"LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY", "LC_NUMERIC", "LC_TIME",
	"LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION",
}

// claudeEnv are Claude Code's own variables that are known to hold no
// credential (names read by Claude Code 2.1.330): model choices, feature
// switches, limits and timeouts, and the cloud providers' switches,
// regions and projects. Every other ANTHROPIC_*, CLAUDE_CODE_* or
// DISABLE_* stays out (an admin key, a gateway's headers, Foundry's key, a
// client key's passphrase): a name passes because it is listed, never
// because of how it starts. ANTHROPIC_CUSTOM_HEADERS is the proxy's
// (APIVariables).
var claudeEnv = []string{
	"ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION", "ANTHROPIC_BETAS",
	"ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL_NAME", "ANTHROPIC_DEFAULT_OPUS_MODEL_DESCRIPTION",
	"ANTHROPIC_DEFAULT_OPUS_MODEL_SUPPORTED_CAPABILITIES",
	"ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL_NAME", "ANTHROPIC_DEFAULT_SONNET_MODEL_DESCRIPTION",
	"ANTHROPIC_DEFAULT_SONNET_MODEL_SUPPORTED_CAPABILITIES",
	"ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL_NAME", "ANTHROPIC_DEFAULT_HAIKU_MODEL_DESCRIPTION",
	"ANTHROPIC_DEFAULT_HAIKU_MODEL_SUPPORTED_CAPABILITIES",
	"ANTHROPIC_CUSTOM_MODEL_OPTION", "ANTHROPIC_CUSTOM_MODEL_OPTION_NAME", "ANTHROPIC_CUSTOM_MODEL_OPTION_DESCRIPTION",
	"ANTHROPIC_CUSTOM_MODEL_OPTION_SUPPORTED_CAPABILITIES",
	"CLAUDE_CODE_SUBAGENT_MODEL", "CLAUDE_CODE_EFFORT_LEVEL", "MAX_THINKING_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
	"CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY",
	"CLAUDE_CODE_MAX_RETRIES", "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "SLASH_COMMAND_TOOL_CHAR_BUDGET",
	"API_TIMEOUT_MS", "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH", "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT",
	"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR", "ENABLE_TOOL_SEARCH", "USE_BUILTIN_RIPGREP",
	"CLAUDE_CODE_ENABLE_TASKS", "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION", "CLAUDE_CODE_NO_FLICKER", "CLAUDE_CODE_ACCESSIBILITY",
	"CLAUDE_CODE_SYNTAX_HIGHLIGHT", "CLAUDE_CODE_SCROLL_SPEED", "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL",
	"DISABLE_AUTOUPDATER", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND", "DISABLE_COST_WARNINGS",
	"DISABLE_PROMPT_CACHING", "DISABLE_PROMPT_CACHING_HAIKU", "DISABLE_PROMPT_CACHING_SONNET", "DISABLE_PROMPT_CACHING_OPUS",
	"DISABLE_INTERLEAVED_THINKING", "DISABLE_AUTO_COMPACT", "DISABLE_COMPACT", "DISABLE_DOCTOR_COMMAND", "DISABLE_FEEDBACK_COMMAND",
	"DISABLE_INSTALLATION_CHECKS", "DISABLE_LOGIN_COMMAND", "DISABLE_LOGOUT_COMMAND", "DISABLE_UPGRADE_COMMAND",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE", "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
	"CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS",
	"CLAUDE_CODE_DISABLE_FILE_CHECKPOINTING", "CLAUDE_CODE_DISABLE_THINKING", "CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING",
	"CLAUDE_CODE_DISABLE_1M_CONTEXT", "CLAUDE_CODE_DISABLE_FAST_MODE", "CLAUDE_CODE_DISABLE_CLAUDE_MDS",
	"CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS", "CLAUDE_CODE_DISABLE_MOUSE", "CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN",
	"CLAUDE_CODE_DISABLE_VIRTUAL_SCROLL", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL",
	"CLAUDE_CODE_DISABLE_BUNDLED_SKILLS", "CLAUDE_CODE_DISABLE_WEB_FETCH",
	// The cloud providers' switches and where their API is: their
	// credentials (AWS_BEARER_TOKEN_BEDROCK, ANTHROPIC_FOUNDRY_API_KEY, …)
	// pass only named with --env.
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY",
	"CLAUDE_CODE_SKIP_BEDROCK_AUTH", "CLAUDE_CODE_SKIP_VERTEX_AUTH", "CLAUDE_CODE_SKIP_FOUNDRY_AUTH",
	"ANTHROPIC_VERTEX_PROJECT_ID", "ANTHROPIC_FOUNDRY_RESOURCE", "CLOUD_ML_REGION", "AWS_REGION",
}

// urlEnv are passed in when set, as allowedEnv, unless the value names a
// URL's user (see namesURLUser), has a URL path segment that may be a
// token (credential.InURLPath) or holds a credential.
var urlEnv = []string{"ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL", "ANTHROPIC_FOUNDRY_BASE_URL"}

// toolchainEnv are passed in when set: where a toolchain is and how it
// builds (paths, module patterns, flags), so that builds inside are the
// host's. None is meant to hold a secret, but a proxy's or an index's URL
// can embed one (GOPROXY=https://user:token@host, as GOSUMDB, or a token
// in its path), and flags a key (GOFLAGS=-ldflags=-X=main.dbPass=…):
// a value that names a URL's user, has a path segment not known to be a
// word (credential.InURLPath), gives the linker a string not known to be
// none (credential.InLinkerFlags) or holds a credential passes only on
// request (--env), and the launch names it as not passed. KUBECONFIG
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

// Allowed says a variable of this name and value passes into the sandbox
// without being named: it is on one of the allowlists, and its value holds
// no credential package credential recognises (an EDITOR's
// --password=…, a model option's api_key=…: a name says what a variable
// is for, not what a user put in it), nor, where it may be a URL, names
// a URL's user. A list of paths is judged path by path (and word by word), so that an entry
// that ends in "oauth" does not read as naming the next. Claude Code's
// settings keep the same variables in their env.
func Allowed(name, value string) bool {
	switch {
	case slices.Contains(toolchainEnv, name) || slices.Contains(urlEnv, name):
		if namesURLUser(value) || credential.InURLPath([]byte(value)) || credential.InLinkerFlags([]byte(value)) {
			return false
		}
	case !slices.Contains(allowedEnv, name) && !slices.Contains(claudeEnv, name):
		return false
	}
	parts := []string{value}
	if slices.Contains(pathListEnv, name) {
		// Each entry a name, its spaces too: WSL's PATH holds Windows'
		// folders ("/mnt/c/Program Files (x86)/Authy Desktop/resources/app"),
		// whose "Authy Desktop/…" read as a key given to a name.
		parts = strings.FieldsFunc(value, func(r rune) bool { return r == ':' || unicode.IsSpace(r) })
	}
	return !slices.ContainsFunc(parts, func(p string) bool { return credential.InCommand([]byte(p)) })
}

// pathListEnv are the allowlisted variables that hold a list of paths
// (or, LANGUAGE, of locales), separated by colons.
var pathListEnv = []string{"PATH", "LANGUAGE", "GOPATH", "KUBECONFIG"}

// namesURLUser reports whether v may hold a URL with a user (and so
// perhaps a password or token) in it: any @, since a proxy's URL is
// commonly written without its scheme (user:pass@proxy:3128, which curl,
// Go and Python read as http://).
func namesURLUser(v string) bool {
	return strings.Contains(v, "@")
}

// quietEnv are dropped without a word: the shell's and the desktop
// session's own plumbing, which means nothing inside, and what claudebox
// brings in its own way (the SSH agent's filter; the git configuration
// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM name, or GIT_CONFIG_NOSYSTEM
// leaves out, copied where git inside reads it).
var quietEnv = []string{
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
	"PWD", "OLDPWD", "SHLVL", "_", "SHELL", "TMPDIR", "MAIL", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID",
	"SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", "GPG_AGENT_INFO", "LS_COLORS", "LESSOPEN", "LESSCLOSE",
	"TMUX", "TMUX_PANE", "STY", "WINDOW", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "VTE_VERSION",
	"MOTD_SHOWN", "DESKTOP_SESSION", "SESSION_MANAGER", "WINDOWID", "SHELL_SESSION_ID",
}

// quietEnvPrefixes are dropped without a word, as quietEnv; CLAUDEBOX_
// are claudebox's own, read on the host; DIRENV_ direnv's record of the
// .envrc it loaded in the shell (DIRENV_DIFF holds every value it set),
// whose variables are named themselves.
var quietEnvPrefixes = []string{"CLAUDEBOX_", "DIRENV_", "XDG_", "GNOME_", "KDE_", "KITTY_", "ITERM_", "WT_", "KONSOLE_", "GDM", "QT_", "GTK_", "BASH_FUNC_"}

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

// APIVariables point Claude Code at its API and authenticate it. Inside,
// claudebox sets them itself (the proxy's address and a phantom
// credential), so none is ever passed in: the user's values, from the
// host's environment, their own env settings or --env, are read by the
// proxy outside (Env.API); a project's are dropped, since a project must
// not choose where the user's credential goes. ANTHROPIC_CUSTOM_HEADERS
// (a gateway's key, most often) the proxy adds to Claude's API calls.
// The other agents' (package
// agent) are among them, whichever agent a sandbox runs.
var APIVariables = []string{
	"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS",
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

// SetFrom names, for each variable whose value an env file or --env set,
// the file ("" for --env NAME=VALUE): what the plan may know of it.
func (e Env) SetFrom() map[string]string {
	from := make(map[string]string, len(e.Values))
	for name := range e.Values {
		from[name] = e.From[name]
	}
	return from
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
	for _, n := range slices.Concat(allowedEnv, claudeEnv, toolchainEnv, urlEnv) {
		if set[n] && Allowed(n, values[n]) {
			addName(n)
		}
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
