package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview41InSkillCodeToken: a skill's Python or JavaScript
// (a helper a user wrote beside its SKILL.md) was judged as code, for a
// token by its prefix or under a name that says a secret, so a token
// with no prefix given to a name that says nothing (CF = "…", const
// PUSHOVER_APP = '…', the X-Auth-Key and token= they then send)
// crossed, where the same line in a shell script or a hook's script was
// kept out. The attack, from inside: read the skill. Proof: neither is
// readable inside; a skill's code that gives a name a checksum or a
// commit still is.
func TestReplayReview41InSkillCodeToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: purge the CDN, send a push\n---\nRun purge.py or push.mjs.\n")
	h.Write(filepath.Join(skill, "purge.py"), "import sys, urllib.request\n\nZONE = \"example.com\"\nCF = \"1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7\"\n\nreq = urllib.request.Request(f\"https://api.cloudflare.com/client/v4/zones/{ZONE}/purge_cache\", method=\"POST\", headers={\"X-Auth-Key\": CF})\nurllib.request.urlopen(req)\n")
	h.Write(filepath.Join(skill, "push.mjs"), "const PUSHOVER_APP = 'azgdhr9x2kq7mvp3lw8ncf5tby1ejs';\nconst body = new URLSearchParams({ token: PUSHOVER_APP, message: process.argv[2] });\nawait fetch('https://api.pushover.net/1/messages.json', { method: 'POST', body });\n")
	h.Write(filepath.Join(skill, "check.py"), "# R41-HARMLESS-CODE\nEMPTY_TREE = \"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"\nSHA256 = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/ops/*; true")
	t.Log(out)
	for _, secret := range []string{"1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7", "azgdhr9x2kq7mvp3lw8ncf5tby1ejs"} {
		if strings.Contains(out, secret) {
			t.Errorf("a skill's code's token is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R41-HARMLESS-CODE") {
		t.Errorf("inside, want the skill's code that names a commit and a checksum")
	}
}
