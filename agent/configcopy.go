package agent

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/claudesettings"
)

// What of another agent's configuration enters the sandbox: only the keys
// known to hold no credential, and the MCP servers the user carries in by
// name (--with-mcp, mcp in config.toml), each whole, with its env, headers
// and tokens. Everything else (a model provider's headers or bearer token,
// OpenTelemetry's headers, an MCP server not named, what a later release
// adds) stays out, and the launch names it; so does a known key whose
// value has a credential written in it (a command's token, a webhook).

// Unreadable names, among what a copy left out, a file claudebox cannot
// read as the agent does: its copy is empty.
const Unreadable = "(unreadable)"

// codexKeys are the keys of Codex's config.toml (0.169.0) known harmless:
// its models, approvals, instructions, display, features and tools.
// profiles keep these keys each; projects keep only their trust_level.
// Left out: model_providers (their headers and bearer tokens),
// shell_environment_policy (its set values), otel (its headers), the
// endpoints and stores of logins, MCP OAuth and realtime, and mcp_servers
// but those carried in.
var codexKeys = map[string]bool{
	"model": true, "review_model": true, "model_provider": true, "model_context_window": true,
	"model_max_output_tokens": true, "model_auto_compact_token_limit": true, "model_auto_compact_token_limit_scope": true,
	"model_post_turn_compact_threshold_percent": true, "approval_policy": true, "sandbox_mode": true,
	"sandbox_workspace_write": true, "default_permissions": true, "allow_login_shell": true, "notify": true,
	"instructions": true, "developer_instructions": true, "include_apps_instructions": true,
	"include_collaboration_mode_instructions": true, "include_environment_context": true,
	"model_instructions_file": true, "experimental_instructions_file": true, "compact_prompt": true,
	"forced_login_method": true, "forced_chatgpt_workspace_id": true, "project_doc_max_bytes": true,
	"project_doc_fallback_filenames": true, "tool_output_token_limit": true, "background_terminal_max_timeout": true,
	"history": true, "file_opener": true, "tui": true, "hide_agent_reasoning": true, "show_raw_agent_reasoning": true,
	"model_reasoning_effort": true, "plan_mode_reasoning_effort": true, "model_reasoning_summary": true,
	"model_reasoning_summary_format": true, "model_supports_reasoning_summaries": true, "model_verbosity": true,
	"personality": true, "profile": true, "profiles": true, "projects": true, "features": true, "tools": true,
	"web_search": true, "agents": true, "suppress_unstable_features_warning": true, "project_root_markers": true,
	"check_for_update_on_startup": true, "notice": true, "disable_paste_burst": true, "analytics": true,
	"windows_wsl_setup_acknowledged": true, "ghost_snapshot": true, "auto_review": true,
}

// geminiKeys are the top-level keys of Gemini CLI's settings.json (0.61.0)
// known harmless. Left out: telemetry (its endpoint; the row's overrides
// turn it off), billing, admin, and mcpServers but those carried in.
var geminiKeys = map[string]bool{
	"$schema": true, "general": true, "output": true, "ui": true, "ide": true, "privacy": true, "model": true,
	"modelConfigs": true, "agents": true, "context": true, "tools": true, "mcp": true, "useWriteTodos": true,
	"security": true, "advanced": true, "experimental": true, "extensions": true, "skills": true,
	"hooksConfig": true, "hooks": true, "contextManagement": true,
}

// mcpServersKey is where the agent's configuration file holds its MCP
// servers, "" for Claude's (instance's ~/.claude.json).
func (a Agent) mcpServersKey() string {
	switch {
	case a.SavedConfig != "":
		return "mcp_servers"
	case a.Settings != "":
		return "mcpServers"
	}
	return ""
}

// configFile is the agent's configuration file that holds its MCP servers.
func (a Agent) configFile(home string) string {
	name := a.SavedConfig
	if name == "" {
		name = a.Settings
	}
	return filepath.Join(home, a.ConfigDir, name)
}

// MCPServers are the MCP servers the host's configuration file of the
// agent defines, each as JSON (for the approval's digest), by name; nil
// for Claude, whose are in ~/.claude.json.
func (a Agent) MCPServers(home string) map[string]json.RawMessage {
	key := a.mcpServersKey()
	if key == "" {
		return nil
	}
	data, err := readSmall(a.configFile(home))
	if err != nil {
		return nil
	}
	top, ok := a.parse(data)
	if !ok {
		return nil
	}
	servers, _ := top[key].(map[string]any)
	out := map[string]json.RawMessage{}
	for name, def := range servers {
		if b, err := json.Marshal(def); err == nil {
			out[name] = b
		}
	}
	return out
}

// parse reads the agent's configuration file as it does: TOML for Codex,
// JSON with comments (a later duplicate key winning) for Gemini, a
// leading byte order mark skipped. ok is false for anything else.
func (a Agent) parse(data []byte) (map[string]any, bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var top map[string]any
	var err error
	if a.SavedConfig != "" {
		err = toml.Unmarshal(data, &top)
	} else {
		err = json.Unmarshal(withoutComments(data), &top)
	}
	return top, err == nil && top != nil
}

// withoutComments is JSON text with its // and /* */ comments blanked, as
// Gemini CLI reads its settings (strip-json-comments): a comment's marks
// inside a string are the string's.
func withoutComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		switch {
		case inString && out[i] == '\\':
			i++
		case out[i] == '"':
			inString = !inString
		case inString || out[i] != '/' || i+1 == len(out):
		case out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// keep filters top by the agent's known harmless keys, keeping of its MCP
// servers only those carried, and returns what it left out (MCP servers
// are named by the launch's own notice).
func (a Agent) keep(top map[string]any, carried []string) []string {
	known := geminiKeys
	if a.SavedConfig != "" {
		known = codexKeys
	}
	var leftOut []string
	for key, v := range top {
		switch {
		case key == a.mcpServersKey():
			servers, _ := v.(map[string]any)
			for name := range servers {
				if !slices.Contains(carried, name) {
					delete(servers, name)
				}
			}
			if len(servers) == 0 {
				delete(top, key)
			}
		case !known[key]:
			leftOut = append(leftOut, key)
			delete(top, key)
		case holdsCredential(v):
			// A command it runs (Codex's notify, Gemini's hooks) with a
			// webhook's URL or a token written in it.
			leftOut = append(leftOut, key+" (a credential is written in it)")
			delete(top, key)
		case a.SavedConfig != "" && key == "profiles":
			profiles, _ := v.(map[string]any)
			for name, p := range profiles {
				profile, _ := p.(map[string]any)
				for k, v := range profile {
					if !codexKeys[k] || k == "profiles" || k == "projects" || k == "profile" || holdsCredential(v) {
						leftOut = append(leftOut, "profiles."+name+"."+k)
						delete(profile, k)
					}
				}
			}
		case a.SavedConfig != "" && key == "projects":
			projects, _ := v.(map[string]any)
			for path, p := range projects {
				level, _ := p.(map[string]any)["trust_level"].(string)
				if trustLevels[level] {
					projects[path] = map[string]any{"trust_level": level}
				} else {
					delete(projects, path)
				}
			}
		}
	}
	slices.Sort(leftOut)
	return leftOut
}

// BearsOn says what an agent records for the folder path (a trust
// answer, an extension's or a plugin's scope) bears on project: it is
// the project's, a folder's in it, or one's above it (Gemini's
// TRUST_PARENT, a folder trusted with all it holds). Any other names
// another of the user's projects, which the sandbox does not see.
func BearsOn(path, project string) bool {
	path, project = filepath.Clean(path), filepath.Clean(project)
	within := func(p, dir string) bool { return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/") }
	return within(path, project) || within(project, path)
}

// TrustCopy is the private copy of an agent's trust answers (Gemini's
// trustedFolders.json, a folder's path to its answer) with only those
// that bear on project; one that is not a JSON object is copied empty.
func TrustCopy(host []byte, project string) []byte {
	var folders map[string]any
	if json.Unmarshal(host, &folders) != nil {
		return nil
	}
	for path := range folders {
		if !BearsOn(path, project) {
			delete(folders, path)
		}
	}
	b, _ := json.MarshalIndent(folders, "", "  ")
	return b
}

// EnablementCopy is the private copy of Gemini's rules of where each
// extension is enabled (extension-enablement.json: a rule is a folder's
// path, ! before it to disable, * after it for the folders in it) with
// only the rules that bear on project, which alone can match a folder of
// it; one that does not read as rules is not shown.
func EnablementCopy(host []byte, project string) ([]byte, bool) {
	var rules map[string]struct {
		Overrides []string `json:"overrides"`
	}
	if json.Unmarshal(host, &rules) != nil {
		return nil, false
	}
	for name, r := range rules {
		r.Overrides = slices.DeleteFunc(r.Overrides, func(rule string) bool {
			path := strings.TrimSuffix(strings.TrimPrefix(rule, "!"), "*")
			return !strings.HasPrefix(path, "/") || !BearsOn(path, project)
		})
		rules[name] = r
	}
	b, err := json.MarshalIndent(rules, "", "  ")
	return b, err == nil
}

// holdsCredential says a value of the agent's configuration has a
// credential written in it, as a hook's command of Claude Code's may.
func holdsCredential(v any) bool {
	b, err := json.Marshal(v)
	return err != nil || claudesettings.HasCommandCredential(b)
}

// CodexConfigCopy is the private copy of Codex's config.toml, host's
// file's data: only the keys known harmless, and the MCP servers carried
// in; and what it left out (names only). A file that is not TOML gives an
// empty copy.
func CodexConfigCopy(host []byte, carried []string, project string) ([]byte, []string) {
	if len(bytes.TrimSpace(host)) == 0 {
		return nil, nil
	}
	top, ok := Codex.parse(host)
	if !ok {
		return nil, []string{Unreadable}
	}
	leftOut := Codex.keep(top, carried)
	if projects, ok := top["projects"].(map[string]any); ok {
		for path := range projects {
			if !BearsOn(path, project) {
				delete(projects, path)
			}
		}
	}
	out, err := toml.Marshal(top)
	if err != nil {
		return nil, []string{Unreadable}
	}
	return out, leftOut
}

// SettingsCopy is the private copy of the agent's settings, from the
// host's (nil when it has none): only the keys known harmless and the MCP
// servers carried in, with the row's overrides merged in; and what it
// left out (names only). A file that is not a JSON object is left out.
func (a Agent) SettingsCopy(host []byte, carried []string) ([]byte, []string) {
	top, ok := a.parse(host)
	var leftOut []string
	if !ok && len(bytes.TrimSpace(host)) > 0 {
		leftOut = []string{Unreadable}
	}
	if ok {
		leftOut = a.keep(top, carried)
	}
	b, _ := json.Marshal(top)
	return a.SettingsContent(b), leftOut
}

// codexSystemDir is where Codex reads the system's and the organization's
// configuration: config.toml, managed_config.toml (the same keys) and
// requirements.toml (what the organization allows). Every user may read
// them, and an administrator writes there what the user's own config.toml
// holds (a model provider's bearer token, an MCP server's headers).
const codexSystemDir = "/etc/codex"

// requirementsKeys are the keys of Codex's requirements.toml (0.169.0)
// known harmless: the approvals, sandbox modes, permission profiles,
// logins, web search and features the organization allows, and its
// instructions. Left out: its MCP servers, hooks, OpenTelemetry (headers),
// configuration server and what a later release adds.
var requirementsKeys = map[string]bool{
	"allowed_approval_policies": true, "allowed_approvals_reviewers": true, "allowed_sandbox_modes": true,
	"allowed_permission_profiles": true, "allowed_web_search_modes": true, "allowed_login_methods": true,
	"allowed_chatgpt_workspaces": true, "allow_managed_hooks_only": true, "allow_browser_and_computer_use": true,
	"allow_appshots": true, "allow_remote_control": true, "enforce_residency": true,
	"additional_developer_instructions": true,
}

// SystemCopy is the private copy of the agent's system-wide file path,
// host's data, rebuilt of what is known harmless (Codex's config.toml and
// managed_config.toml as the user's config.toml, with no MCP server;
// requirements.toml's requirementsKeys with no credential written in
// them), and what it left out; ok is false for a path that is none.
func SystemCopy(path string, host []byte, project string) (copy []byte, leftOut []string, ok bool) {
	switch path {
	case filepath.Join(codexSystemDir, "config.toml"), filepath.Join(codexSystemDir, "managed_config.toml"):
		copy, leftOut = CodexConfigCopy(host, nil, project)
		return copy, leftOut, true
	case filepath.Join(codexSystemDir, "requirements.toml"):
	default:
		return nil, nil, false
	}
	if len(bytes.TrimSpace(host)) == 0 {
		return nil, nil, true
	}
	top, parsed := Codex.parse(host)
	if !parsed {
		return nil, []string{Unreadable}, true
	}
	for key, v := range top {
		switch {
		case !requirementsKeys[key]:
			leftOut = append(leftOut, key)
			delete(top, key)
		case holdsCredential(v):
			leftOut = append(leftOut, key+" (a credential is written in it)")
			delete(top, key)
		}
	}
	slices.Sort(leftOut)
	copy, err := toml.Marshal(top)
	if err != nil {
		return nil, []string{Unreadable}, true
	}
	return copy, leftOut, true
}
