package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview43InPromptsAndListFences: a note's command after a
// shell prompt was code only after a bare $: after the prompt bash
// itself shows (alice@staging:~$, [alice@staging app]$), zsh's %, or a
// virtualenv's (venv) $, it was read as prose, and so was a fence that
// opens a list's item (- ```sh), so the password each exports crossed,
// short or long. The attack, from inside: read them. Proof: none is
// readable inside; a note whose prompt line takes the password from a
// variable still is.
func TestReplayReview43InPromptsAndListFences(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for each step.\n", 260)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\nDeploy to staging:\n\nalice@staging:~$ export DEPLOY_PASSWORD=Qe4rT7yU2iOp9b\nalice@staging:~$ ./deploy.sh staging\n")
	h.Write(filepath.Join(claude, "commands", "zsh.md"), "Release.\n\n% export RELEASE_TOKEN=Lk8jH3gF6dSa2y\n")
	h.Write(filepath.Join(claude, "commands", "venv.md"), "Back up.\n\n"+pad+"(venv) $ PGPASSWORD=Mn5bV2cX8zLk3q pg_dump app > app.sql\n"+pad)
	h.Write(filepath.Join(claude, "commands", "fedora.md"), "Restart.\n\n[alice@staging app]$ REDIS_PASSWORD=Wp7oI4uY1tRe6w ./restart.sh\n")
	h.Write(filepath.Join(claude, "commands", "list.md"), "Steps:\n\n1. ```sh\n   export SMTP_PASSWORD=Hj2kL9mN4bVc7x\n   ```\n2. Send.\n")
	h.Write(filepath.Join(claude, "commands", "notes.md"), "R43-HARMLESS-PROMPT\n\nalice@staging:~$ export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/commands/*.md; true")
	for _, secret := range []string{"Qe4rT7yU2iOp9b", "Lk8jH3gF6dSa2y", "Mn5bV2cX8zLk3q", "Wp7oI4uY1tRe6w", "Hj2kL9mN4bVc7x"} {
		if strings.Contains(out, secret) {
			t.Errorf("a note's prompt line or list item's fence is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R43-HARMLESS-PROMPT") {
		t.Errorf("inside, want the note whose prompt line holds no credential")
	}
}
