package firstday

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// pingServer is a stdio MCP server in bash with one tool, ping, as the
// SDKs answer (a method it does not know gets "method not found").
const pingServer = `#!/bin/bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id": *\([0-9][0-9]*\|"[^"]*"\).*/\1/p')
  method=$(printf '%s' "$line" | sed -n 's/.*"method": *"\([^"]*\)".*/\1/p')
  [ -z "$id" ] && continue
  case "$method" in
  initialize)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    reply='"result":{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"notes","version":"1"}}' ;;
  tools/list)
    reply='"result":{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{}}}]}' ;;
  *) reply='"error":{"code":-32601,"message":"method not found"}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,%s}\n' "$id" "$reply"
done
`

// TestFirstDayConfigDirMCPOffered: a user whose claude keeps its
// configuration where CLAUDE_CONFIG_DIR says keeps its ~/.claude.json
// there too ($CLAUDE_CONFIG_DIR/.claude.json: claude mcp add writes it,
// with the onboarding and the projects' trust). Having linked ~/.claude
// there, as the launch says to, --with-mcp NAME of a server claude mcp
// add had just added failed: "no MCP server NAME in ~/.claude.json". The
// launch reads the file the host's claude reads, and claude inside gets
// the server.
func TestFirstDayConfigDirMCPOffered(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "confmcp")
	h.GitRepo(proj)
	conf := filepath.Join(h.Home, ".config", "claude")
	const key = "sk-ant-test-key-confmcp-0123456789abcde"
	h.Onboarded(key, proj)
	h.Run(h.Home, nil, "mkdir", "-p", conf)
	h.Run(h.Home, nil, "mv", filepath.Join(h.Home, ".claude.json"), filepath.Join(conf, ".claude.json"))
	h.Run(h.Home, nil, "ln", "-s", conf, filepath.Join(h.Home, ".claude"))
	server := filepath.Join(h.Home, ".local", "share", "notes", "server.sh")
	h.Write(server, pingServer)
	harness.Must(t, os.Chmod(server, 0o755))
	confEnv := []string{"CLAUDE_CONFIG_DIR=" + conf}
	h.Run(proj, confEnv, "claude", "mcp", "add", "--scope", "user", "notes", "--", server)

	api := harness.StartFakeAPI(t, "FAKE-REPLY-confmcp")
	var stderr strings.Builder
	cmd := h.Command(proj, append(api.Env(key), confEnv...), "claudebox", "--with-mcp", "notes", "-p", "hi")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox --with-mcp notes: %v\n%s", err, stderr.String())
	}
	if !api.Received("mcp__notes__ping") {
		t.Errorf("claude inside was not offered the server of %s/.claude.json:\n%s", conf, stderr.String())
	}
}
