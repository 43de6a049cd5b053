package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview42InPreAndPromptLines: a note's command shown in an
// HTML <pre> block, or after a shell prompt's $, was read as prose, so
// the password it exports crossed, short or long. The attack, from
// inside: read them. Proof: neither is readable inside; a note whose
// prompt line takes the password from a variable still is.
func TestReplayReview42InPreAndPromptLines(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for each step.\n", 260)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\nDeploy to staging:\n\n$ export DEPLOY_PASSWORD=Qe4rT7yU2iOp9a\n$ ./deploy.sh staging\n")
	h.Write(filepath.Join(claude, "commands", "release.md"), "Release.\n\n"+pad+"<pre>\nexport RELEASE_TOKEN=Lk8jH3gF6dSa1z\n./release.sh\n</pre>\n"+pad)
	h.Write(filepath.Join(claude, "commands", "notes.md"), "R42-HARMLESS-PROMPT\n\n$ export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/commands/*.md; true")
	for _, secret := range []string{"Qe4rT7yU2iOp9a", "Lk8jH3gF6dSa1z"} {
		if strings.Contains(out, secret) {
			t.Errorf("a note's <pre> or prompt line is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-HARMLESS-PROMPT") {
		t.Errorf("inside, want the note whose prompt line holds no credential")
	}
}
