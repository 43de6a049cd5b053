package probe

import (
	"encoding/json"
	"path/filepath"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// claudeFlagFiles are what claude's own --settings and --mcp-config
// name, on the terms of the user's ~/.claude/settings.json and of the
// MCP servers carried in: a file outside what the sandbox shows is a
// private copy at its place of what is known harmless
// (claudesettings.FlagCopy; inline JSON the launch rewrites the same
// way), and what the kept part names (a hook's script, the status
// line's, a server's program) is named for claudeSetup to show as your
// settings' are. A file where the sandbox can write, or that a bind or
// the system directories show, is left as it is, and not read for what
// it names; one claudebox cannot copy (in a credential store or
// claudebox's state, no regular file) is named as not shown.
func claudeFlagFiles(claudeArgs []ClaudeArg, home, homeEnv string, inside, state []string, secrets map[string]bool) (copies []mount.FlagFile, named []namedPath, unshown []mount.Unshown) {
	claudeDir := filepath.Join(home, ".claude")
	for _, a := range claudeArgs {
		if a.Flag != claudesettings.SettingsFlag && a.Flag != claudesettings.MCPConfigFlag {
			continue
		}
		what := "claude " + a.Flag
		var data []byte
		if claudesettings.InlineJSON(a.Flag, a.Path) {
			data = []byte(a.Path)
		} else {
			path := filepath.Clean(expandHome(a.Path, home, homeEnv))
			real, err := filepath.EvalSymlinks(path)
			if err != nil || paths.UnderAny(real, inside) || paths.UnderAny(path, inside) {
				continue // missing (claude inside says so, as the host's does), or shown as it is
			}
			if filepath.Dir(path) == claudeDir && (filepath.Base(path) == "settings.json" || filepath.Base(path) == "settings.local.json") {
				continue // a private copy already
			}
			if paths.UnderAny(real, state) {
				unshown = append(unshown, mount.Unshown{Path: path, What: what, Reason: "it lies in claudebox's state, where the sandbox can write, so what it names is not obeyed"})
				continue
			}
			c, ok := homeCopy(path, secrets)
			if !ok {
				unshown = append(unshown, mount.Unshown{Path: path, What: what, Reason: "it is no regular file, or lies where secrets are kept"})
				continue
			}
			if data, err = untrusted.ReadFile(filepath.Dir(c.Src), filepath.Base(c.Src), setupFileLimit); err != nil {
				unshown = append(unshown, mount.Unshown{Path: path, What: what, Reason: "it cannot be read whole (over 4 MiB, or not a plain file)"})
				continue
			}
			copies = append(copies, mount.FlagFile{Flag: a.Flag, Copy: c})
			what += " " + tildePath(path, home)
		}
		kept, _ := claudesettings.FlagCopy(a.Flag, data)
		expand := func(p string) string { return expandHome(p, home, homeEnv) }
		if a.Flag == claudesettings.SettingsFlag {
			n, _ := settingsNames(kept, what, expand)
			named = append(named, n...)
			continue
		}
		var config struct {
			Servers map[string]json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(kept, &config) == nil {
			for _, name := range sortedKeys(config.Servers) {
				named = append(named, mcpNames(config.Servers[name], "MCP server "+name+" ("+what+")", expand)...)
			}
		}
	}
	return copies, named, unshown
}
