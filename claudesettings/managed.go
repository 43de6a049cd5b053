package claudesettings

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// ManagedDir is where Claude Code reads the organization's managed policy
// on Linux: managed-settings.json, the drop-ins of managed-settings.d,
// managed-mcp.json. Every user may read them, and an administrator puts
// there what the user's own settings hold (a token in env, a hook's
// webhook, an MCP server's bearer token), so the sandbox gets them as
// private copies on the same terms as the user's (CopyContent).
const ManagedDir = "/etc/claude-code"

// managedMCP is the organization's file of MCP servers.
var managedMCP = filepath.Join(ManagedDir, "managed-mcp.json")

// managedServersKey is the managed settings' key of the MCP servers the
// organization delivers, kept as managed-mcp.json's servers are.
const managedServersKey = "managedMcpServers"

// isManagedSettings says path is the managed settings file or one of its
// drop-ins (managed-settings.d holds nothing else Claude Code reads).
func isManagedSettings(path string) bool {
	return path == filepath.Join(ManagedDir, "managed-settings.json") ||
		filepath.Dir(path) == filepath.Join(ManagedDir, "managed-settings.d")
}

// mcpServerKeys are the keys of an MCP server's definition known to hold
// no credential: how it is reached or started. A server with any other
// (env, headers, an OAuth client's settings, a helper that prints
// headers), or with a credential written in its command, arguments or
// URL, is left out whole.
var mcpServerKeys = map[string]bool{"type": true, "command": true, "args": true, "url": true, "cwd": true, "timeout": true}

// managedServersKept is an object of MCP servers (name → definition)
// with only those whose definition holds no credential, and the names
// (under path) of the others: nil and path for what is not such an
// object.
func managedServersKept(path string, raw json.RawMessage) (json.RawMessage, []string) {
	var servers map[string]json.RawMessage
	if json.Unmarshal(raw, &servers) != nil || servers == nil {
		return nil, []string{path}
	}
	var dropped []string
	for name, raw := range servers {
		var def map[string]json.RawMessage
		if json.Unmarshal(raw, &def) != nil || !serverKnownHarmless(def) {
			delete(servers, name)
			dropped = append(dropped, path+"."+name)
		}
	}
	kept, err := json.Marshal(servers)
	if err != nil {
		return nil, []string{path}
	}
	return kept, dropped
}

// serverKnownHarmless says an MCP server's definition has only the keys
// of mcpServerKeys (an empty env or headers too), and no credential
// written in its command line or URL.
func serverKnownHarmless(def map[string]json.RawMessage) bool {
	if def == nil {
		return false
	}
	var line []string
	for key, v := range def {
		switch {
		case key == "env" || key == "headers":
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil || len(m) > 0 {
				return false
			}
		case !mcpServerKeys[key]:
			return false
		case key == "args":
			var args []string
			if json.Unmarshal(v, &args) != nil {
				return false
			}
			line = append(line, args...)
		default:
			line = append(line, string(jsonText(v)))
		}
	}
	return !HasCommandCredential([]byte(strings.Join(line, " ")))
}

// managedMCPCopy is the private copy of managed-mcp.json: its mcpServers
// as managedServersKept keeps them, nothing else; one claudebox cannot
// read as Claude Code does holds no server.
func managedMCPCopy(data []byte) ([]byte, []string) {
	const none = "{\"mcpServers\":{}}\n"
	top, ok := parse(data)
	if !ok {
		return []byte(none), []string{unreadable}
	}
	var leftOut []string
	for key := range top {
		if key != "mcpServers" {
			leftOut = append(leftOut, key)
		}
	}
	slices.Sort(leftOut)
	if top["mcpServers"] == nil {
		return []byte(none), leftOut
	}
	kept, dropped := managedServersKept("mcpServers", top["mcpServers"])
	slices.Sort(dropped)
	leftOut = append(leftOut, dropped...)
	if kept == nil {
		return []byte(none), leftOut
	}
	out, err := json.MarshalIndent(map[string]json.RawMessage{"mcpServers": kept}, "", "  ")
	if err != nil {
		return []byte(none), []string{unreadable}
	}
	return append(out, '\n'), leftOut
}
