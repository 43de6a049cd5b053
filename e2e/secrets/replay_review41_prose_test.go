package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview41InLargeProseLines: prose over 16 KiB (a skill's
// reference, a command) was judged as code, for a
// label's value at a line's end and a token drawn at random, so what
// the same line in a short one kept out crossed: a header's literal
// (wget --header="Authorization: …"), a fenced block's export
// DEPLOY_PASSWORD=…, a proxy's address without a scheme with its
// password. The attack, from inside: read them. Proof: none is
// readable inside; a long note whose curl takes its key from a
// variable, and whose addresses are mail's and a package's alias,
// still is.
func TestReplayReview41InLargeProseLines(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	pad := strings.Repeat("The deploy runs from the main branch; see the runbook for each step.\n", 260)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "commands", "items.md"), "List the items.\n\n"+pad+"~~~\nwget --header=\"Authorization: Bearer-less Kp0wZq8xT3vN5y\" https://api.example.com/v1/items\n~~~\n"+pad)
	skill := filepath.Join(claude, "skills", "deploy")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: deploy the site\n---\nRead reference.md.\n")
	h.Write(filepath.Join(skill, "reference.md"), "# Deploying\n\n"+pad+"```bash\nexport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n./deploy.sh\n```\n"+pad)
	h.Write(filepath.Join(claude, "commands", "build.md"), "Build the release.\n\n"+pad+"The build hosts reach the network through corp:hunter2hunter2@proxy.corp:3128 only.\n"+pad)
	h.Write(filepath.Join(claude, "commands", "notes.md"), "R41-HARMLESS-PROSE\n\n"+pad+"curl -H \"X-Api-Key: $API_KEY\" https://api.example.com\nWrite to team@example.com; the alias is \"kpg\": \"npm:pkg@1.0.0\".\n"+pad)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/deploy/reference.md ~/.claude/commands/*.md; true")
	for _, secret := range []string{"Kp0wZq8xT3vN5y", "Zq8xT3vN5yKp0w", "hunter2hunter2"} {
		if strings.Contains(out, secret) {
			t.Errorf("a long text's line is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R41-HARMLESS-PROSE") {
		t.Errorf("inside, want the long note with no credential")
	}
}
