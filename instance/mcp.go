package instance

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"slices"

	"github.com/claudebox/claudebox/internal/jsonscan"
	"github.com/claudebox/claudebox/untrusted"
)

// mcpServersKey is where ~/.claude.json holds MCP server definitions: at
// the top level for the user's scope, and in a project's entry for that
// project alone (claude mcp add's default, local scope, keyed by the
// repository's root).
const mcpServersKey = "mcpServers"

// ValidServerName reports whether name can name an MCP server: what
// claude mcp add accepts, 1 to 64 of A-Z, a-z, 0-9, _ and -; a definition
// named otherwise is not offered. (As a regular expression, compiled at
// every start of claudebox, its watcher and its relay, it cost 0.5 ms.)
func ValidServerName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// HostMCPServers returns the MCP server definitions the host's Claude Code
// offers in the project: the user scope's, overridden by the local scope's
// of the nearest of paths (the working directory and its ancestors) that
// has one, as a local definition wins a name in Claude Code. The values
// are raw JSON, each a valid object; a missing file offers none. It reads
// the whole file: a launch calls it only when it carries servers.
func HostMCPServers(hostPath string, paths []string) (map[string]json.RawMessage, error) {
	host, _, err := untrusted.ReadResolved(hostPath, maxClaudeJSON)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	user, local := mcpDefinitions(host, paths)
	for _, p := range paths {
		if defs, ok := local[p]; ok {
			maps.Copy(user, defs)
			break
		}
	}
	return user, nil
}

// OfferedMCPNames returns the names of the servers HostMCPServers would
// offer, sorted, from the record of what was carried when the host file is
// unchanged: a launch that carries none still names them, at no cost
// whatever the file's size. It writes nothing.
func OfferedMCPNames(hostPath, stateDir string, paths []string) ([]string, error) {
	c, err := hostCarried(hostPath, stateDir, paths, false)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(c.MCPUser)
	for _, p := range paths {
		if local, ok := c.MCPLocal[p]; ok {
			names = append(names, local...)
			break
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// mcpDefinitions scans the host file for the user scope's definitions and
// those of each of paths that has its own, keeping only well-named
// objects; other projects' entries are skipped unparsed.
func mcpDefinitions(host []byte, paths []string) (user map[string]json.RawMessage, local map[string]map[string]json.RawMessage) {
	defs := func(b []byte) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		jsonscan.Members(b, func(name string, def []byte) {
			if ValidServerName(name) && len(def) > 0 && def[0] == '{' && json.Valid(def) {
				m[name] = json.RawMessage(def)
			}
		})
		return m
	}
	user, local = map[string]json.RawMessage{}, map[string]map[string]json.RawMessage{}
	jsonscan.Members(host, func(key string, val []byte) {
		switch key {
		case mcpServersKey:
			user = defs(val)
		case "projects":
			jsonscan.Members(val, func(path string, project []byte) {
				if !slices.Contains(paths, path) {
					return
				}
				jsonscan.Members(project, func(k string, v []byte) {
					if k == mcpServersKey {
						local[path] = defs(v)
					}
				})
			})
		}
	})
	return user, local
}
