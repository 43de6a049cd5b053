package claudesettings

import "strings"

// Claude's own flags that name settings or MCP servers by a file or
// inline JSON: the sandbox gets them on the terms of the user's own
// settings file and of the organization's MCP servers (FlagCopy).
const (
	SettingsFlag  = "--settings"
	MCPConfigFlag = "--mcp-config"
)

// InlineJSON says value, given to flag, is JSON rather than a file's
// path, as Claude Code tells them apart: a settings value wrapped in
// braces, an MCP config starting with one.
func InlineJSON(flag, value string) bool {
	v := strings.TrimSpace(value)
	if flag == SettingsFlag {
		return strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}")
	}
	return strings.HasPrefix(v, "{")
}

// FlagCopy is what the sandbox gets of the settings or MCP servers data
// that flag names, and what of it was left out (names, never values): a
// settings file kept as the user's own ~/.claude/settings.json is (a token
// in env, apiKeyHelper, a hook holding a credential left out), an MCP
// config's servers as the organization's are (one with env, headers or
// a credential in its command line left out whole). A server holding a
// token crosses only by name: added on the host with claude mcp add and
// carried with --with-mcp, which asks first.
func FlagCopy(flag string, data []byte) ([]byte, []string) {
	if flag == SettingsFlag {
		return ownSettings(data, false)
	}
	return managedMCPCopy(data)
}
