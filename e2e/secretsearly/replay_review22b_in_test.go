package secretsearly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22bCommandMailtoShown: a command's or a skill's Markdown
// that shows a mail link ([write to us](mailto:team@example.com)) was
// taken for a URL with a password (a scheme-less user:password@host), and
// hidden inside at every session. It is shown; one with a credential is
// not (TestReplayReview22CommandDocumentCredential).
func TestReplayReview22bCommandMailtoShown(t *testing.T) {
	h := harness.NewHost(t)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "commands", "support.md"), "REVIEW22B-MAILTO. Questions: [write to us](mailto:team@example.com)\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/commands/support.md; true")
	if !strings.Contains(out, "REVIEW22B-MAILTO") {
		t.Errorf("inside, want the command with a mail link:\n%s", out)
	}
}
