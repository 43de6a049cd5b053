package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayMCPRepositoryAsksForToken: a repository's .claudebox.toml
// names the user's MCP server, whose token is in its arguments (not env or
// headers, so the definition alone would not ask), to have the definition
// carried into the sandbox, where the agent reads it from ~/.claude.json.
// Host-side proof: without approval the launch fails, and no file in
// claudebox's state (the instance's claude.json included) holds the token;
// approved with --yes, it comes in.
func TestReplayMCPRepositoryAsksForToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "mcp")
	h.GitRepo(proj)
	const token = "MCP-ARG-SECRET-4c2"
	h.Write(filepath.Join(h.Home, ".claude.json"), `{"mcpServers":{"corp":{"type":"stdio","command":"corp-mcp","args":["--api-key=`+token+`"],"env":{}}}}`)
	h.Write(filepath.Join(proj, ".claudebox.toml"), "mcp = [\"corp\"]\n")
	h.Chown()
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "cat ~/.claude.json")
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err == nil || strings.Contains(stdout.String(), token) {
		t.Fatalf("the repository's server came in unapproved: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stderr.String(), "MCP server corp (from ") {
		t.Errorf("the question does not name the server:\n%s", stderr.String())
	}
	filepath.Walk(filepath.Join(h.Home, ".claudebox"), func(p string, fi os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); err == nil && fi.Mode().IsRegular() && bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if out := h.Run(proj, nil, "claudebox", "--yes", "--shell", "-c", "cat ~/.claude.json"); !strings.Contains(out, token) {
		t.Errorf("approved, the server's definition is not inside: %s", out)
	}
}
