package instance

import (
	"bytes"
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

// MCPServers returns the MCP server definitions the host's Claude Code
// offers in the project: the user scope's, overridden by the local scope's
// of the nearest of paths (the working directory and its ancestors) that
// has one, as a local definition wins a name in Claude Code. The values
// are raw JSON, each a valid object; a missing file offers none. They are
// those of the file as host read it for paths; when host was read from
// the record, the whole file is read: a launch calls it only when it
// carries servers.
func (host HostClaudeJSON) MCPServers(paths []string) (map[string]json.RawMessage, error) {
	if host.fresh && slices.Equal(paths, host.trustPaths) {
		return maps.Clone(host.offered), nil
	}
	var scan claudeJSONScan
	err := untrusted.ScanResolved(host.path, maxClaudeJSON, func(b []byte) { scan = scanClaudeJSON(b, paths) })
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return scan.offered(paths), nil
}

// offered are the definitions s offers in the nearest of paths: the user
// scope's, overridden by the local scope's of the first of paths with one.
func (s claudeJSONScan) offered(paths []string) map[string]json.RawMessage {
	if len(s.user) == 0 && len(s.local) == 0 {
		return nil
	}
	offered := maps.Clone(s.user)
	if offered == nil {
		offered = map[string]json.RawMessage{}
	}
	for _, p := range paths {
		if defs, ok := s.local[p]; ok {
			maps.Copy(offered, defs)
			break
		}
	}
	return offered
}

// MCPNames returns the names of the servers MCPServers would offer for
// the paths host was read for, sorted: a launch that carries none still
// names them, from the record at no cost whatever the file's size when
// the file is unchanged.
func (host HostClaudeJSON) MCPNames(paths []string) []string {
	names := slices.Clone(host.c.MCPUser)
	for _, p := range paths {
		if local, ok := host.c.MCPLocal[p]; ok {
			names = append(names, local...)
			break
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// mcpServers are the well-named definitions among an mcpServers object's
// members, each a valid object, copied out of b.
func mcpServers(b []byte) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	jsonscan.Members(b, func(name string, def []byte) {
		if ValidServerName(name) && len(def) > 0 && def[0] == '{' && json.Valid(def) {
			m[name] = json.RawMessage(bytes.Clone(def))
		}
	})
	return m
}
