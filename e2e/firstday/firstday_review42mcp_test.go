package firstday

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay42MCPVerdictKept: claude -p with a local MCP server that
// does not answer Claude Code's server/discover (it answers every
// unknown method with an empty result) waits about 3 s for the probe,
// then remembers the server's verdict in ~/.claude/state, and on the
// host skips the probe from the second launch on. Inside, that state was
// the session's alone, so every claudebox -p paid the 3 s: a newcomer's
// -p with a local plugin and server several times slower than claude's.
// The verdicts are kept with the project's other state, and only there:
// a session of another project starts without them.
func TestFirstDay42MCPVerdictKept(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "verdict42")
	other := filepath.Join(h.Home, "code", "other42")
	h.GitRepo(proj)
	h.GitRepo(other)
	server := filepath.Join(proj, "mcp.sh")
	h.Write(server, harness.MCPServerScript)
	h.Run(proj, nil, "chmod", "+x", server)
	mcpConfig := filepath.Join(proj, "mcp.json")
	h.Write(mcpConfig, `{"mcpServers": {"pingsrv": {"command": "`+server+`"}}}`+"\n")
	h.Chown()
	const key = "sk-ant-test-key-verdict42-0123456789abcd"
	h.Onboarded(key, proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-verdict42")
	var stdout, stderr bytes.Buffer
	cmd := h.Command(proj, api.Env(key), "claudebox", "--mcp-config", mcpConfig, "-p", "hello")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "FAKE-REPLY-verdict42") {
		t.Fatalf("claudebox --mcp-config -p: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	const verdicts = "~/.claude/state/mcp-discover-verdicts.json"
	look := "cat " + verdicts + " 2>/dev/null || echo NONE"
	if out := h.Inside(proj, nil, look); !strings.Contains(out, "stdio:") {
		t.Errorf("the next session of the project has no server verdicts: %q", out)
	}
	if out := h.Inside(other, nil, look); !strings.Contains(out, "NONE") {
		t.Errorf("another project's session sees this one's verdicts: %q", out)
	}
	if _, err := os.Stat(filepath.Join(h.Home, ".claude", "state", "mcp-discover-verdicts.json")); err == nil {
		t.Errorf("the session wrote its verdicts into the host's ~/.claude/state")
	}
}
