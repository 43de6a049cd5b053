// Package claudesettings reads and rewrites Claude Code's settings files
// for the sandbox: which ones Claude Code saves (the sandbox gets private
// copies), what a copy holds, and the API variables the user's own file
// sets.
package claudesettings

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf16"

	"github.com/claudebox/claudebox/environment"
)

// ProjectCopies are the files in a project's .claude that Claude Code
// saves (permission rules the user approves).
var ProjectCopies = []string{"settings.json", "settings.local.json"}

// StagingDir is the folder Claude Code (2.1.330) writes a settings file's
// new content to, where the folder is beside the file, before it takes
// the file's place (else beside the file itself).
const StagingDir = ".cc-writes"

// Claude Code's own sandbox (settings key sandbox.enabled) runs every Bash
// command in a nested bwrap, which needs a new user namespace; claudebox's
// seccomp filter refuses one, so with it on every Bash command fails. Inside
// claudebox, claudebox is the sandbox: the private copies of Claude Code's
// settings files have it turned off. The host's files are never changed.

// CopyContent is what the sandbox's private copy of the host file src
// holds, given the file's data, and what of it was left out (names, never
// values). A file other than a Claude Code settings file is copied as it
// is. A project's shared settings (settings.json, which the sandbox reads
// in the repository anyway) are copied with Claude Code's own sandbox
// turned off and no API variables in their env (see apiEnvOff). Your own,
// in home's ~/.claude, and your own for a project (its
// settings.local.json, which git ignores and the guard hides, where the
// host's claude keeps the command rules you approve, a curl's bearer token
// among them, and the env you set), keep only what is known harmless: the
// keys of userKeys, and in env the
// variables the sandbox's environment would pass itself, of the hooks, the
// commands, the rules and the plugins' options those with no credential
// written in them; a file claudebox
// cannot read as Claude Code does becomes an empty one. The organization's
// managed policy (ManagedDir) is kept on the same terms, its MCP servers
// as managedServersKept keeps them.
func CopyContent(src, home string, data []byte) ([]byte, []string) {
	switch {
	case src == managedMCP:
		return managedMCPCopy(data)
	case isManagedSettings(src):
		return ownSettings(data, true)
	case !isClaudeSettings(src):
		return data, nil
	case filepath.Dir(src) != filepath.Join(home, ".claude") && filepath.Base(src) != "settings.local.json":
		return apiEnvOff(innerSandboxOff(data)), nil
	}
	return ownSettings(data, false)
}

// ownSettings is CopyContent of a settings file of the user's own, or of
// the organization's (managed, where managedMcpServers is kept as
// managed-mcp.json's servers are).
func ownSettings(data []byte, managed bool) ([]byte, []string) {
	top, ok := parse(data)
	if !ok && len(bytes.TrimSpace(data)) > 0 {
		return []byte("{}\n"), []string{unreadable}
	}
	var leftOut []string
	for key := range top {
		if !userKeys()[key] && (!managed || key != managedServersKey) {
			leftOut = append(leftOut, key)
			delete(top, key)
		}
	}
	if raw, ok := top[managedServersKey]; ok {
		kept, dropped := managedServersKept(managedServersKey, raw)
		if kept == nil {
			delete(top, managedServersKey)
		} else {
			top[managedServersKey] = kept
		}
		leftOut = append(leftOut, dropped...)
	}
	if raw, ok := top["env"]; ok {
		kept, dropped, isObject := envKept(raw)
		top["env"] = kept
		if !isObject {
			delete(top, "env")
			leftOut = append(leftOut, "env")
		}
		for _, name := range dropped {
			leftOut = append(leftOut, "env."+name)
		}
	}
	if raw, ok := top["hooks"]; ok {
		kept, dropped := hooksKept(raw)
		if kept == nil {
			delete(top, "hooks")
		} else {
			top["hooks"] = kept
		}
		leftOut = append(leftOut, dropped...)
	}
	if raw, ok := top["pluginConfigs"]; ok {
		kept, dropped := pluginConfigsKept(raw)
		if kept == nil {
			delete(top, "pluginConfigs")
		} else {
			top["pluginConfigs"] = kept
		}
		leftOut = append(leftOut, dropped...)
	}
	// A setting that runs a command (the status lines, the file
	// suggestion) is left out whole when a credential is written in its
	// command; of the others, each string that has one written in it (a
	// permission rule's curl -u ci:…) is.
	for key, raw := range top {
		if key == "env" || key == "hooks" || key == "pluginConfigs" || key == managedServersKey {
			continue
		}
		var setting map[string]json.RawMessage
		if json.Unmarshal(raw, &setting) == nil && setting["command"] != nil {
			if HasCommandCredential(jsonText(setting["command"])) {
				delete(top, key)
				leftOut = append(leftOut, key+" (a command holding a credential)")
			}
			continue
		}
		kept, dropped := settingKept(key, raw)
		if kept == nil {
			delete(top, key)
		} else {
			top[key] = kept
		}
		leftOut = append(leftOut, dropped...)
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return []byte("{}\n"), []string{unreadable}
	}
	// A private marketplace's URL may carry its token.
	if redacted, had := WithoutURLCredentials(out); had {
		out, leftOut = redacted, append(leftOut, urlCredentials)
	}
	slices.Sort(leftOut)
	return innerSandboxOff(append(out, '\n')), leftOut
}

// envKept is a settings env block with only the variables the sandbox's
// environment passes by itself (environment.Allowed), and the names of
// the others, but for the API variables, which the proxy reads (APIEnv).
// isObject is false for a block that is not an object.
func envKept(raw json.RawMessage) (kept json.RawMessage, dropped []string, isObject bool) {
	var env map[string]json.RawMessage
	if json.Unmarshal(raw, &env) != nil || env == nil {
		return nil, nil, false
	}
	for name, v := range env {
		var value string
		if json.Unmarshal(v, &value) != nil {
			value = string(v)
		}
		if environment.Allowed(name, value) {
			continue
		}
		delete(env, name)
		if !slices.Contains(environment.APIVariables, name) {
			dropped = append(dropped, name)
		}
	}
	kept, _ = json.Marshal(env)
	return kept, dropped, true
}

// hookTypes are the kinds of hook handler whose settings need hold no
// credential: a command, a prompt, an agent, run inside; one whose command
// has a credential written in it (a notification's curl with its token)
// is left out. Left out always: an http hook (its url and headers,
// "Authorization: Bearer …", hold one), an MCP tool's (its arguments),
// and any kind Claude Code adds later.
var hookTypes = map[string]bool{"command": true, "prompt": true, "agent": true}

// hooksKept is a settings hooks block (event → matcher groups → handlers)
// with only the handlers of hookTypes, and what it left out: nil and
// "hooks" for a block of another shape.
func hooksKept(raw json.RawMessage) (json.RawMessage, []string) {
	var events map[string][]map[string]json.RawMessage
	if json.Unmarshal(raw, &events) != nil || events == nil {
		return nil, []string{"hooks"}
	}
	var dropped []string
	for event, groups := range events {
		for _, group := range groups {
			h, ok := group["hooks"]
			if !ok {
				continue
			}
			var handlers []map[string]json.RawMessage
			if json.Unmarshal(h, &handlers) != nil {
				return nil, []string{"hooks"}
			}
			var kept []map[string]json.RawMessage
			for _, handler := range handlers {
				var kind string
				json.Unmarshal(handler["type"], &kind)
				switch {
				case !hookTypes[kind]:
					dropped = append(dropped, "hooks."+event+" ("+kind+" hook)")
				case HasCommandCredential(jsonText(handler["command"])) || HasCommandCredential(jsonText(handler["prompt"])):
					dropped = append(dropped, "hooks."+event+" ("+kind+" hook holding a credential)")
				default:
					kept = append(kept, handler)
				}
			}
			if kept == nil {
				kept = []map[string]json.RawMessage{}
			}
			group["hooks"], _ = json.Marshal(kept)
		}
	}
	out, err := json.Marshal(events)
	if err != nil {
		return nil, []string{"hooks"}
	}
	return out, dropped
}

// jsonText is the text a settings string holds, its escapes decoded (a
// quote escaped in JSON is a quote); nil for any other value.
func jsonText(raw json.RawMessage) []byte {
	var s string
	json.Unmarshal(raw, &s)
	return []byte(s)
}

// urlCredentials names, among what a copy left out, the credentials
// taken out of URLs.
const urlCredentials = "the credentials in URLs"

// unreadable names, among what a copy left out, a file claudebox cannot
// read as Claude Code does: its copy is empty.
const unreadable = "(unreadable)"

// parse reads a settings file as Claude Code reads it (measured with
// 2.1.330): UTF-16LE after its byte order mark, else UTF-8, a leading byte
// order mark skipped, then JSON whose later duplicate key wins (as
// JSON.parse), no comments. ok is false for anything that is not a JSON
// object.
func parse(data []byte) (top map[string]json.RawMessage, ok bool) {
	if len(data) >= 2 && data[0] == 0xff && data[1] == 0xfe {
		units := make([]uint16, 0, len(data)/2)
		for i := 2; i+1 < len(data); i += 2 {
			units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
		}
		data = []byte(string(utf16.Decode(units)))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, false
	}
	return top, true
}

// apiEnvOff returns settings without the API's address and credential in
// its env: Claude Code lets a settings file's env win over the process's
// (measured with 2.1.330), so one there would send the phantom past the
// proxy, and a key there is the user's real one. The proxy reads the
// user's own values on the host (APIEnv).
func apiEnvOff(settings []byte) []byte {
	top, ok := parse(settings)
	var env map[string]json.RawMessage
	if !ok || json.Unmarshal(top["env"], &env) != nil {
		return settings
	}
	n := len(env)
	for _, name := range environment.APIVariables {
		delete(env, name)
	}
	if len(env) == n {
		return settings
	}
	top["env"], _ = json.Marshal(env)
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return settings
	}
	return append(out, '\n')
}

// APIEnv reads the API variables Claude Code's settings set, as
// NAME=VALUE: the user's own, then the organization's managed policy,
// which overrides them (a company's gateway in its env; the sandbox's
// copy of the policy keeps none of them, so it reaches the proxy here).
func APIEnv(home string) []string {
	return apiEnv(append([]string{filepath.Join(home, ".claude", "settings.json")}, managedSettingsFiles(ManagedDir)...))
}

// managedSettingsFiles are the managed settings file in dir and its
// drop-ins, in the order Claude Code merges them (by name).
func managedSettingsFiles(dir string) []string {
	dropIns, _ := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json"))
	return append([]string{filepath.Join(dir, "managed-settings.json")}, dropIns...)
}

// apiEnv reads the API variables the settings files set, in order: a
// later file's value comes later, and wins.
func apiEnv(files []string) []string {
	var kv []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		top, _ := parse(data)
		var env map[string]any
		json.Unmarshal(top["env"], &env)
		for _, name := range environment.APIVariables {
			if v, ok := env[name].(string); ok {
				kv = append(kv, name+"="+v)
			}
		}
	}
	return kv
}

// isClaudeSettings reports whether path is a settings file Claude Code reads
// from a .claude directory: the user's ~/.claude or a project's.
func isClaudeSettings(path string) bool {
	return filepath.Base(filepath.Dir(path)) == ".claude" && slices.Contains(ProjectCopies, filepath.Base(path))
}

// innerSandboxOff returns settings with sandbox.enabled false, when it was
// set to anything else; otherwise, or when the file is not a JSON object
// (Claude Code reports that itself), settings unchanged.
func innerSandboxOff(settings []byte) []byte {
	top, ok := parse(settings)
	if !ok {
		return settings
	}
	var sandbox map[string]json.RawMessage
	if json.Unmarshal(top["sandbox"], &sandbox) != nil {
		return settings
	}
	if enabled, ok := sandbox["enabled"]; !ok || string(enabled) == "false" {
		return settings
	}
	sandbox["enabled"] = json.RawMessage("false")
	top["sandbox"], _ = json.Marshal(sandbox)
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return settings
	}
	return append(out, '\n')
}

// NetworkDomains reads the domain lists of Claude Code's own sandbox in
// the user's ~/.claude/settings.json: sandbox.network.allowedDomains and
// deniedDomains, which claudebox's filtered network starts from (a
// project's settings are never read for them: they would widen it). path
// is the file read.
func NetworkDomains(home string) (allowed, denied []string, path string) {
	path = filepath.Join(home, ".claude", "settings.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, path
	}
	top, _ := parse(data)
	var sandbox, network map[string]json.RawMessage
	json.Unmarshal(top["sandbox"], &sandbox)
	json.Unmarshal(sandbox["network"], &network)
	json.Unmarshal(network["allowedDomains"], &allowed)
	json.Unmarshal(network["deniedDomains"], &denied)
	return allowed, denied, path
}
