package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25bClaudeConfigDirMadeInProject: CLAUDE_CONFIG_DIR
// names a directory in the project (a dotfiles repository's claude/)
// that does not exist yet. The sandbox makes it and writes settings.json
// with a hook, which the host's claude, started with that variable,
// runs. Host-side proof: no settings.json the session wrote stays there.
func TestReplayReview25bClaudeConfigDirMadeInProject(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "dotfiles")
	h.GitRepo(proj)
	config := filepath.Join(proj, "claude")
	out, _ := h.Command(proj, []string{"CLAUDE_CONFIG_DIR=" + config}, "claudebox", "--shell", "-c",
		`mkdir -p claude && echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/PWNED"}]}]}}' > claude/settings.json && echo WROTE`).CombinedOutput()
	if _, err := os.Lstat(filepath.Join(config, "settings.json")); err == nil {
		t.Errorf("the session's settings.json stays where the host's claude reads it:\n%s", out)
	}
	// Once it exists it stays hidden, and the launch works.
	h.Write(filepath.Join(config, ".credentials.json"), "sk-ant-oat01-the-login\n")
	out, err := h.Command(proj, []string{"CLAUDE_CONFIG_DIR=" + config}, "claudebox", "--shell", "-c", `cat claude/.credentials.json; echo LAUNCHED`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "LAUNCHED") || strings.Contains(string(out), "the-login") {
		t.Errorf("the launch beside an existing one: %v\n%s", err, out)
	}
}
