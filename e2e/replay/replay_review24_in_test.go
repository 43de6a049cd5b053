package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview24SkillPasswords: of a skill's files, a script was
// searched only for a token, a webhook's URL, a bearer token or a URL's
// password, not for a user's password given to curl on its command line
// (`curl -u ci:PASSWORD`), which a hook's command of the same text would
// not have shown; and settings over 16 KiB only for what code holds,
// not for a literal given to a key that names one (a `password:` line in
// a 20 KiB config.yaml). The attack, from inside: read them. Proof:
// neither is readable inside and --dry-run names both; a script with a
// user and no password, and large settings with none, still are.
func TestReplayReview24SkillPasswords(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R24"
	skill := filepath.Join(h.Home, ".claude", "skills", "deploy")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: deploy\n---\nRun scripts/deploy.sh.\n")
	h.Write(filepath.Join(skill, "scripts", "deploy.sh"), "#!/bin/sh\ncurl -fsS -u ci:"+secret+" -X POST https://jenkins.corp/job/deploy/build\n")
	h.Write(filepath.Join(skill, "scripts", "status.sh"), "#!/bin/sh\n# REVIEW24-SCRIPT\nsort -u list.txt\ncurl -u \"ci:$CI_PASSWORD\" https://jenkins.corp/\ncurl --user \"$CI_USER\" https://jenkins.corp/\n")
	filler := strings.Repeat("# the deployment's stages, one a line, as the team wrote them down\n", 330)
	h.Write(filepath.Join(skill, "config.yaml"), filler+"database:\n  host: db.corp\n  password: "+secret+"\n")
	h.Write(filepath.Join(skill, "stages.yaml"), "# REVIEW24-LARGE\n"+filler+"token_budget: 4096\npassword: ${DB_PASSWORD}\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; head -2 ~/.claude/skills/deploy/scripts/status.sh ~/.claude/skills/deploy/stages.yaml; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a password in a skill's script or large settings is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW24-SCRIPT", "REVIEW24-LARGE"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the skill's file that holds no credential (%s):\n%s", want, out)
		}
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"scripts/deploy.sh", "config.yaml"} {
		if !strings.Contains(dry, "~/.claude/skills/deploy/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/skills/deploy/%s as left out:\n%s", f, dry)
		}
	}
}
