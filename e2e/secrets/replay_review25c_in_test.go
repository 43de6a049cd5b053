package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25cPositionalPasswords: a hook's command, a ~/bin
// script and a skill's script gave a password or a token where no rule
// looked: in its place (htpasswd -b file user PASSWORD, vault login
// TOKEN, echo PASSWORD | sudo -S), after an Authorization scheme no
// token prefix names, as an npm token, or by fish's set -x. The attack,
// from inside: read them. Proof: none is readable inside; what gives a
// variable or a prompt still is.
func TestReplayReview25cPositionalPasswords(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R25c"
	const npm = "npm_R25cabcdefghijklmnopqrstuvwxyz012345"
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"htpasswd -b /srv/.htpasswd ci `+secret+`"},
		{"type":"command","command":"echo REVIEW25C-HOOK; htpasswd -B /srv/.htpasswd ci"}]}]}}`)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "unseal"), "#!/bin/sh\nvault login s."+secret+"\necho "+secret+" | sudo -S systemctl restart app\n")
	h.Write(filepath.Join(bin, "seal"), "#!/bin/sh\necho REVIEW25C-BIN; vault login -method=github token=\"$GH_TOKEN\"\n")
	os.Chmod(filepath.Join(bin, "unseal"), 0o755)
	os.Chmod(filepath.Join(bin, "seal"), 0o755)
	skill := filepath.Join(h.Home, ".claude", "skills", "ship")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ship\ndescription: ship\n---\nRun scripts/ship.sh.\n")
	h.Write(filepath.Join(skill, "scripts", "ship.sh"), "#!/bin/sh\nNPM_TOKEN="+npm+" npm publish\n")
	h.Write(filepath.Join(skill, "scripts", "issue.sh"), "#!/bin/sh\ncurl -H 'Authorization: token "+secret+"' https://api.github.com/user\n")
	h.Write(filepath.Join(skill, "scripts", "env.fish"), "set -gx OPENAI_API_KEY "+secret+"\n")
	h.Write(filepath.Join(skill, "scripts", "plain.sh"), "#!/bin/sh\n# REVIEW25C-SKILL\ncurl -H \"Authorization: Bearer $TOKEN\" https://x\nnpm_config_cache=/tmp/npm npm ci\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := "PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, "exec 2>&1; grep -r -e "+secret+" -e "+npm+" ~/.claude/settings.json ~/bin ~/.claude/skills; cat ~/.claude/settings.json; head -2 ~/bin/seal; head -2 ~/.claude/skills/ship/scripts/plain.sh; true")
	t.Log(out)
	if strings.Contains(out, secret) || strings.Contains(out, npm) {
		t.Errorf("a password or token given in its place is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW25C-HOOK", "REVIEW25C-BIN", "REVIEW25C-SKILL"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what gives a variable or a prompt (%s):\n%s", want, out)
		}
	}
}
