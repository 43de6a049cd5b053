package instance

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
)

// mcpServersKey is where ~/.claude.json holds MCP server definitions: at
// the top level for the user's scope, and in a project's entry for that
// project alone (claude mcp add's default, local scope).
const mcpServersKey = "mcpServers"

// validServerName is what claude mcp add accepts as a server's name; a
// definition named otherwise is not offered.
var validServerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidServerName reports whether name can name an MCP server.
func ValidServerName(name string) bool { return validServerName.MatchString(name) }

// HostMCPServers returns the MCP server definitions the host's Claude Code
// offers in the project: the user scope's, overridden by the local scope's
// of the nearest of paths (the working directory and its ancestors) that
// has an entry, as Claude Code lets a local definition win. The values are
// raw JSON, each a valid object; a missing file offers none.
func HostMCPServers(hostPath string, paths []string) (map[string]json.RawMessage, error) {
	host, err := os.ReadFile(hostPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	servers := map[string]json.RawMessage{}
	add := func(defs []byte) {
		eachMember(defs, func(name string, def []byte) {
			if ValidServerName(name) && len(def) > 0 && def[0] == '{' && json.Valid(def) {
				servers[name] = json.RawMessage(def)
			}
		})
	}
	local := map[string][]byte{}
	eachMember(host, func(key string, val []byte) {
		switch key {
		case mcpServersKey:
			add(val)
		case "projects":
			eachMember(val, func(path string, project []byte) {
				eachMember(project, func(k string, v []byte) {
					if k == mcpServersKey {
						local[path] = v
					}
				})
			})
		}
	})
	for _, p := range paths {
		if defs, ok := local[p]; ok {
			add(defs)
			break
		}
	}
	return servers, nil
}
