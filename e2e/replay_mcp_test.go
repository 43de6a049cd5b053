package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayMCPRepositoryAsksForToken: a repository's .claudebox.toml
// names the user's MCP server, whose token is in its arguments (not env or
// headers, so the definition alone would not ask), to have the definition
// carried into the sandbox, where the agent reads it from ~/.claude.json.
// Host-side proof: without approval the launch fails, and no file in
// claudebox's state (the instance's claude.json included) holds the token;
// approved with --yes, it comes in.
func TestReplayMCPRepositoryAsksForToken(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "mcp")
	h.gitRepo(proj)
	const token = "MCP-ARG-SECRET-4c2"
	h.write(filepath.Join(h.home, ".claude.json"), `{"mcpServers":{"corp":{"type":"stdio","command":"corp-mcp","args":["--api-key=`+token+`"],"env":{}}}}`)
	h.write(filepath.Join(proj, ".claudebox.toml"), "mcp = [\"corp\"]\n")
	h.chown()
	var stdout, stderr bytes.Buffer
	c := h.command(proj, nil, "claudebox", "--shell", "-c", "cat ~/.claude.json")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err == nil || strings.Contains(stdout.String(), token) {
		t.Fatalf("the repository's server came in unapproved: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stderr.String(), "MCP server corp (from ") {
		t.Errorf("the question does not name the server:\n%s", stderr.String())
	}
	filepath.Walk(filepath.Join(h.home, ".claudebox"), func(p string, fi os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); err == nil && fi.Mode().IsRegular() && bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if out := h.run(proj, nil, "claudebox", "--yes", "--shell", "-c", "cat ~/.claude.json"); !strings.Contains(out, token) {
		t.Errorf("approved, the server's definition is not inside: %s", out)
	}
}
