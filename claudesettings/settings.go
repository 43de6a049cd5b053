// Package claudesettings reads and rewrites Claude Code's settings files
// for the sandbox: which ones Claude Code saves (the sandbox gets private
// copies), what a copy holds, and the API variables the user's own file
// sets.
package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/environment"
)

// ProjectCopies are the files in a project's .claude that Claude Code
// saves (permission rules the user approves).
var ProjectCopies = []string{"settings.json", "settings.local.json"}

// Claude Code's own sandbox (settings key sandbox.enabled) runs every Bash
// command in a nested bwrap, which needs a new user namespace; claudebox's
// seccomp filter refuses one, so with it on every Bash command fails. Inside
// claudebox, claudebox is the sandbox: the private copies of Claude Code's
// settings files have it turned off. The host's files are never changed.

// CopyContent is what the sandbox's private copy of the host file src holds,
// given the file's data: the data itself, but for a Claude Code settings
// file, whose copy has Claude Code's own sandbox turned off and no API
// variables in its env (see apiEnvOff).
func CopyContent(src string, data []byte) []byte {
	if !isClaudeSettings(src) {
		return data
	}
	return apiEnvOff(innerSandboxOff(data))
}

// apiEnvOff returns settings without the API's address and credential in
// its env: Claude Code lets a settings file's env win over the process's
// (measured with 2.1.330), so one there would send the phantom past the
// proxy, and a key there is the user's real one. The proxy reads the
// user's own values on the host (APIEnv).
func apiEnvOff(settings []byte) []byte {
	var top map[string]json.RawMessage
	var env map[string]json.RawMessage
	if json.Unmarshal(settings, &top) != nil || json.Unmarshal(top["env"], &env) != nil {
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

// APIEnv reads the API variables the user's own Claude Code
// settings file sets, as NAME=VALUE.
func APIEnv(home string) []string {
	data, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil {
		return nil
	}
	var settings struct {
		Env map[string]any `json:"env"`
	}
	if json.Unmarshal(data, &settings) != nil {
		return nil
	}
	var kv []string
	for _, name := range environment.APIVariables {
		if v, ok := settings.Env[name].(string); ok {
			kv = append(kv, name+"="+v)
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
	var top map[string]json.RawMessage
	if json.Unmarshal(settings, &top) != nil {
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
	var settings struct {
		Sandbox struct {
			Network struct {
				AllowedDomains []string `json:"allowedDomains"`
				DeniedDomains  []string `json:"deniedDomains"`
			} `json:"network"`
		} `json:"sandbox"`
	}
	if json.Unmarshal(data, &settings) != nil {
		return nil, nil, path
	}
	return settings.Sandbox.Network.AllowedDomains, settings.Sandbox.Network.DeniedDomains, path
}
