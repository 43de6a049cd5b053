// Package agent is the table of the agent CLIs claudebox runs: for each,
// its program, its configuration directory and what of it the sandbox sees,
// where its per-project state goes, how its own sandbox is turned off, the
// project files the host's copy of it obeys, and its credential. Claude is
// the first row; adding a CLI is adding a row.
package agent

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/untrusted"
)

// Agent is one row of the table.
type Agent struct {
	// Name is what --agent takes, and the instance's directory for the
	// agent's state.
	Name string
	// Title names it in a sentence; Program is the command looked up on
	// PATH; Install, the hint to get it.
	Title, Program, Install string
	// ConfigDir is the agent's configuration directory, under $HOME.
	ConfigDir string
	// Shown are the entries of ConfigDir shown read-only; Copies, those it
	// saves, shown as private copies: its trust answers, of which only
	// those bearing on the project (TrustCopy). Anything else there (its login, other
	// projects' history, what a later release adds) stays hidden: the list
	// is an allowlist, so that what it does not know stays out. Claude's
	// entries are probed by the rules of its own row (nil here).
	Shown, Copies []string
	// Extensions is its entry of Shown that holds the extensions the user
	// installed, each shown entry by entry as the launch found it (what
	// the host installs, configures or updates during the session is not
	// shown); in each, the files ExtensionSecrets names (the settings the
	// user gave it) are left out, and those ExtensionRecords names (where
	// it was installed from) are copies without the credentials in their
	// URLs.
	Extensions                         string
	ExtensionSecrets, ExtensionRecords []string
	// ExtensionRules is the file in Extensions where it keeps, for each
	// extension, the folders it is enabled or disabled in: a private copy
	// with only the rules that bear on the project (EnablementCopy).
	ExtensionRules string
	// Instructions are the files in ConfigDir it reads as the user's own
	// instructions for every project, the one it reads first (the last is
	// made when there is none): a private read-only copy of the host's,
	// with SANDBOX.md after it. ContextNames reads, from the host's
	// settings, the other files of ConfigDir it reads so, which are shown
	// read-only.
	Instructions []string
	ContextNames func(settings []byte) []string
	// Secrets are the files in ConfigDir that hold its login, named by
	// --check and SANDBOX.md as never entering.
	Secrets []string
	// State are the entries of ConfigDir that hold its per-project state:
	// each is bound from the agent's directory in the project's instance
	// (a name ending in "/" is a directory).
	State []string
	// KeptState names, for a State directory whose other entries the
	// agent reads as more than its state, the only entries of it one
	// session leaves to the next (regular files); each launch removes
	// the rest. A State directory not named here is kept whole.
	KeptState map[string][]string
	// Env and Args are set inside: its own sandbox off, its telemetry and
	// update checks off, and its API pointed at the proxy (apiURL stands
	// for the proxy's address).
	Env  []string
	Args []string
	// Settings names its settings file in ConfigDir, shown as a private
	// copy with Overrides merged in (JSON), made when the host has none.
	Settings  string
	Overrides map[string]any
	// SavedConfig is its configuration file in ConfigDir, in Codex's
	// format, which it saves by rename (a file bound in its place could
	// not be renamed over): inside, a link to a copy in the project's
	// state (ConfigState), made at each launch from the host's file with
	// the user's trust in the project's paths added, which is where it
	// saves that trust; the answers are carried from one session to the
	// next (WithCodexTrust), never into the host's file.
	SavedConfig string
	// SandboxOff says, for SANDBOX.md, how its own sandbox is turned off.
	SandboxOff string
	// ProjectFiles are the project paths the host's copy of it obeys,
	// which the guards protect (package guard lists them).
	ProjectFiles []string
	// Key is the kind of credential the proxy injects for it; KeyVariables,
	// the host's variables that hold it, in the agent's order of
	// precedence; BaseURLVariable, the host's variable naming its API, and
	// Upstream the API when it is not set.
	Key             proxy.Kind
	KeyVariables    []string
	BaseURLVariable string
	Upstream        string
	// keyFile reads the key from the agent's own login, if any.
	keyFile func(home string) (value, source string)
	// LoginFile is the agent's own OAuth login in ConfigDir, when the row
	// runs with one: the proxy injects it and refreshes it on the host.
	// phantomLogin, when the agent takes its login only from that file,
	// makes the private copy inside (with proxy.PhantomMark for the
	// phantom); else the phantom is in the kind's variable.
	LoginFile    string
	phantomLogin func(home string) string
	// GoogleProject is the Google Cloud project the host's environment
	// names for Gemini's Google login (the probe reads it), the only one
	// besides those Google answers its setup with, or one the user passes
	// in, that its calls may name.
	GoogleProject string
	// login is the row as it runs with the host's other login, when the
	// host's agent would use that login rather than a key.
	login func(a Agent, home string, lookup func(string) (string, bool)) (Agent, bool)
}

// ForHost is the row as it runs with the host's login: the row itself,
// or its variant for another kind of login (Codex's ChatGPT login,
// Gemini's Google login). lookup reads the user's env settings, --env and
// the host's environment.
func (a Agent) ForHost(home string, lookup func(string) (string, bool)) Agent {
	if a.login != nil {
		if other, ok := a.login(a, home, lookup); ok {
			return other
		}
	}
	return a
}

// ConfigState is the state directory holding the copy of SavedConfig.
const ConfigState = "config/"

// apiURL stands, in Args and Env, for the proxy's address inside.
const apiURL = "{{claudebox-api}}"

// Claude is Claude Code: its configuration and credential have their own
// packages (claudesettings, proxy, instance).
var Claude = Agent{
	Name: "claude", Title: "Claude", Program: "claude", Install: "install Claude Code: npm install -g @anthropic-ai/claude-code",
	ConfigDir:    ".claude",
	Secrets:      []string{".credentials.json"},
	SandboxOff:   "sandbox.enabled=false in the private copies of its settings",
	ProjectFiles: []string{".claude", ".mcp.json"},
	// Its checkpoints, the files as they were before its edits: /rewind
	// after --continue or --resume restores the code from them, as on the
	// host; and its state/, where it remembers which MCP servers answer
	// its discovery probe (a server that ignores the probe costs 3 s at
	// each launch until then). Its transcripts and history are the
	// instance's own.
	State: []string{"file-history/", "state/"},
	// Of state/, only the verdicts: Claude Code also keeps there an
	// organization's cached settings, which its next start applies as
	// the organization's policy, the settings changes /settings-review
	// offers you to accept and its consents to MCP servers, none of which
	// a session may leave to the next.
	KeptState: map[string][]string{"state/": {"mcp-discover-verdicts.json"}},
}

// Codex is OpenAI's Codex CLI (measured with 0.169.0). Its base URL can
// only come from its configuration, so a model provider of claudebox's is
// given with -c, which wins over every config file; with WebSockets off it
// makes one POST /responses per turn. Its SQLite state follows
// CODEX_SQLITE_HOME into the instance, for one session.
var Codex = Agent{
	Name: "codex", Title: "Codex", Program: "codex", Install: "install Codex: npm install -g @openai/codex",
	ConfigDir: ".codex",
	Shown:     []string{"AGENTS.md", "AGENTS.override.md", "prompts", "skills", "rules"},
	Secrets:   []string{"auth.json"},
	State:     []string{"sessions/", "sqlite/", "history.jsonl", ConfigState},
	// None of sqlite/: Codex keeps there, beside its index of the
	// conversations (which it rebuilds from sessions/), the messages
	// queued for a conversation, which resuming it sends as the user's,
	// and a conversation's goal, which resuming it pursues on its own.
	KeptState: map[string][]string{"sqlite/": {}},
	// Its refresh, should the backend refuse a token, goes to the proxy,
	// which refuses it: the host refreshes the real login.
	Env:  []string{"CODEX_SQLITE_HOME=~/.codex/sqlite", "CODEX_REFRESH_TOKEN_URL_OVERRIDE=" + apiURL + "/oauth/token"},
	Args: append(codexProvider(`env_key="OPENAI_API_KEY"`), codexArgs...),
	// Measured: it reads AGENTS.override.md instead of AGENTS.md when
	// there is one, and sends it before the project's AGENTS.md.
	Instructions:    []string{"AGENTS.override.md", "AGENTS.md"},
	SavedConfig:     "config.toml",
	SandboxOff:      `-c sandbox_mode="danger-full-access" (its bubblewrap cannot make the namespaces it needs here, so every command would fail)`,
	ProjectFiles:    []string{".codex"},
	Key:             proxy.OpenAIKey,
	KeyVariables:    []string{"CODEX_API_KEY", "OPENAI_API_KEY"},
	BaseURLVariable: "OPENAI_BASE_URL",
	Upstream:        "https://api.openai.com/v1",
	keyFile:         codexKey,
	login:           codexChatGPTLogin,
}

// Gemini is Google's Gemini CLI (measured with 0.61.0). The private copy
// of its settings chooses the API key login (with a base URL set it would
// pick no login it accepts) and turns its own sandbox, telemetry and
// updates off; GEMINI_SANDBOX=false wins over its flags and a project's
// settings. Its system settings would win over a project's too, but it
// reads them only from a directory owned by root, which no directory is in
// the sandbox's user namespace.
var Gemini = Agent{
	Name: "gemini", Title: "Gemini", Program: "gemini", Install: "install Gemini CLI: npm install -g @google/gemini-cli",
	ConfigDir: ".gemini",
	Shown:     []string{"commands", "extensions", "skills", "agents", "policies", "extension-enablement.json"},
	// gemini extensions install and config write the settings it asks for
	// (a service's API key, unless marked sensitive) and where it came from.
	Extensions:       "extensions",
	ExtensionSecrets: []string{".env"},
	ExtensionRecords: []string{".gemini-extension-install.json"},
	ExtensionRules:   "extension-enablement.json",
	Copies:           []string{"trustedFolders.json"},
	Secrets:          []string{"oauth_creds.json", "google_accounts.json", ".env", "mcp-oauth-tokens.json"},
	State:            []string{"tmp/", "history/"},
	// None of history/: its checkpoints are a git repository whose
	// configuration the checkpoint's git reads, a clean filter's command
	// run at each edit proposed; Gemini makes the repository again.
	KeptState: map[string][]string{"history/": {}},
	Env: []string{
		"GEMINI_SANDBOX=false", "GEMINI_TELEMETRY_ENABLED=false",
		"GOOGLE_GEMINI_BASE_URL=" + apiURL,
	},
	Settings: "settings.json",
	Overrides: map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"tools":     map[string]any{"sandbox": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	},
	SandboxOff:      "GEMINI_SANDBOX=false and tools.sandbox=false in its system settings (it would need Docker or Podman)",
	ProjectFiles:    []string{".gemini"},
	Key:             proxy.GeminiKey,
	KeyVariables:    []string{"GEMINI_API_KEY"},
	BaseURLVariable: "GOOGLE_GEMINI_BASE_URL",
	Upstream:        "https://generativelanguage.googleapis.com",
	keyFile:         geminiKey,
	login:           geminiGoogleLogin,
	Instructions:    []string{"GEMINI.md"},
	ContextNames:    geminiContextNames,
}

// All are the rows, Claude first.
var All = []Agent{Claude, Codex, Gemini}

// Named finds the row of name.
func Named(name string) (Agent, bool) {
	for _, a := range All {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Names are the rows' names, for --agent's help and its error.
func Names() []string {
	var names []string
	for _, a := range All {
		names = append(names, a.Name)
	}
	return names
}

// StateEntries are the entries, in every instance, of the agents' state
// ("/" ends a directory's name, each agent's own first): every launch
// creates them, and hides them in every sandbox's view of the instance,
// so that no session can swap one for a symlink that a later session of
// that agent would bind, or read another agent's configuration.
func StateEntries() []string {
	entries := []string{instance.AgentsDir + "/"}
	for _, a := range All {
		dir := instance.AgentsDir + "/" + a.Name + "/"
		entries = append(entries, dir)
		for _, s := range a.State {
			entries = append(entries, dir+s)
		}
	}
	return entries
}

// IsClaude says the row is Claude's, whose configuration has its own
// packages.
func (a Agent) IsClaude() bool { return a.Name == Claude.Name }

// Resolved is a's Env and Args with home and the proxy's address inside
// (url) put in.
func (a Agent) Resolved(home, url string) (env, args []string) {
	put := func(s string) string {
		s = strings.ReplaceAll(s, apiURL, url)
		return strings.Replace(s, "=~/", "="+home+"/", 1)
	}
	for _, e := range a.Env {
		env = append(env, put(e))
	}
	for _, arg := range a.Args {
		args = append(args, put(arg))
	}
	return env, args
}

// AddressVariable is the variable in Env that points the agent at the
// proxy, "" when its arguments do: named by --dry-run.
func (a Agent) AddressVariable() string {
	for _, e := range a.Env {
		if n, v, _ := strings.Cut(e, "="); v == apiURL {
			return n
		}
	}
	return ""
}

// SettingsContent is the private copy of the agent's settings: the host's
// (nil when it has none; one that is not a JSON object is left out) with
// the row's overrides merged in.
func (a Agent) SettingsContent(host []byte) []byte {
	var top map[string]any
	if json.Unmarshal(host, &top) != nil || top == nil {
		top = map[string]any{}
	}
	merge(top, a.Overrides)
	b, _ := json.MarshalIndent(top, "", "  ")
	return append(b, '\n')
}

// merge sets over's values in top, object by object.
func merge(top, over map[string]any) {
	for k, v := range over {
		sub, isObject := v.(map[string]any)
		have, hasObject := top[k].(map[string]any)
		if isObject && hasObject {
			merge(have, sub)
			continue
		}
		if isObject {
			have = map[string]any{}
			merge(have, sub)
			v = have
		}
		top[k] = v
	}
}

// FindKey finds the agent's API key on the host: one of its variables
// (lookup reads the user's env settings, --env and the host's
// environment), else its own login's file. An OAuth login (the row
// ForHost gives for it) is found by FindLogin.
func (a Agent) FindKey(home string, lookup func(string) (string, bool)) (*proxy.Credential, bool) {
	for _, n := range a.KeyVariables {
		if v, ok := lookup(n); ok && v != "" {
			return proxy.KeyCredential(a.Key, n, v), true
		}
	}
	if a.keyFile != nil {
		if v, src := a.keyFile(home); v != "" {
			return proxy.KeyCredential(a.Key, src, v), true
		}
	}
	return nil, false
}

// FindLogin finds the row's own OAuth login on the host (LoginFile),
// which the proxy injects and refreshes against tokenURL ("" for the
// login's own), one refresh at a time across sessions (a lock in
// stateDir).
func (a Agent) FindLogin(home, stateDir, tokenURL string) (*proxy.Credential, bool) {
	if a.LoginFile == "" {
		return nil, false
	}
	path := filepath.Join(home, a.ConfigDir, a.LoginFile)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return proxy.Login(a.Key, path, filepath.Join(stateDir, a.Name+"-refresh.lock"), tokenURL), true
}

// PhantomLogin is the content of the private LoginFile inside, with
// proxy.PhantomMark for the phantom: "" when the phantom is given in the
// kind's variable.
func (a Agent) PhantomLogin(home string) string {
	if a.phantomLogin == nil {
		return ""
	}
	return a.phantomLogin(home)
}

// geminiKey reads GEMINI_API_KEY from ~/.gemini/.env, as Gemini does.
func geminiKey(home string) (string, string) {
	path := filepath.Join(home, ".gemini", ".env")
	b, err := readSmall(path)
	if err != nil {
		return "", ""
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "export "))
		name, value, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(name) == "GEMINI_API_KEY" {
			return strings.Trim(strings.TrimSpace(value), `"'`), path
		}
	}
	return "", ""
}

// readSmall reads a regular file of at most 1 MiB; no link made after its
// links were resolved is followed.
func readSmall(path string) ([]byte, error) {
	b, _, err := untrusted.ReadResolved(path, 1<<20)
	return b, err
}
