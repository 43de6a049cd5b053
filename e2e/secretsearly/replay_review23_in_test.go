package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview23SkillFilesOfUnknownKinds: of ~/.claude's skills,
// agents and commands, only files named as settings or prose were judged;
// a file of any other kind crossed whatever it held: a Telegram client's
// session (an SQLite database holding the account's key), Terraform's
// variables with a database password, direnv's .envrc exporting a token,
// Maven's settings.xml with a repository's password, a backup of an
// agent's settings. The attack, from inside: read them. Proof: none is
// readable inside and --dry-run names each; an image, a schema and a
// script of the skill still are.
func TestReplayReview23SkillFilesOfUnknownKinds(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R23"
	claude := filepath.Join(h.Home, ".claude")
	skill := filepath.Join(claude, "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: ops\n---\nRun ops.py.\n")
	h.Write(filepath.Join(skill, "me.session"), "SQLite format 3\x00\x10\x00\x01\x01\x00@  \x00\x00\x00\x02auth_key\x00"+secret+"\x00\x00")
	h.Write(filepath.Join(skill, "prod.tfvars"), "region = \"eu-west-1\"\ndb_password = \""+secret+"\"\n")
	h.Write(filepath.Join(skill, ".envrc"), "export DEPLOY_TOKEN="+secret+"\n")
	h.Write(filepath.Join(skill, "settings.xml"), "<settings><servers><server><id>corp</id><username>ci</username><password>"+secret+"</password></server></servers></settings>\n")
	h.Write(filepath.Join(claude, "agents", "ops.yaml.bak"), "password: "+secret+"\n")
	h.Write(filepath.Join(skill, "logo.png"), "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR REVIEW23-PNG\x00")
	h.Write(filepath.Join(skill, "schema.xsd"), "<xs:schema><!-- REVIEW23-XSD --></xs:schema>\n")
	h.Write(filepath.Join(skill, "ops.py"), "print('REVIEW23-PY')\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -ra "+secret+" ~/.claude; cat ~/.claude/skills/ops/logo.png ~/.claude/skills/ops/schema.xsd ~/.claude/skills/ops/ops.py; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in a skill's or an agent's file of another kind is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW23-PNG", "REVIEW23-XSD", "REVIEW23-PY"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the skill's image, schema and script (%s):\n%s", want, out)
		}
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"skills/ops/me.session", "skills/ops/prod.tfvars", "skills/ops/.envrc", "skills/ops/settings.xml", "agents/ops.yaml.bak"} {
		if !strings.Contains(dry, "~/.claude/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview23UsrLocalEtc: of /etc only what is known harmless is
// shown, but /usr/local/etc, the configuration of what an administrator
// built or installed under /usr/local (Docker's PHP images keep php.ini
// and its conf.d there), was shown whole with /usr, but for npm's npmrc:
// a database's password in PHP's settings crossed. The attack, from
// inside: read it. Proof: it is not readable inside, and npm's global
// npmrc there is still its private copy.
func TestReplayReview23UsrLocalEtc(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local/etc needs root")
	}
	if fi, err := os.Lstat("/usr/local/etc"); err != nil || !fi.IsDir() {
		t.Skip("no /usr/local/etc to mount over")
	}
	const secret = "hunter2R23Local"
	// Made outside /usr and mounted over the host's in a mount namespace
	// of the test's own: other tests' sessions read the host's meanwhile.
	stage := filepath.Join(h.Base, "local-etc")
	h.Write(filepath.Join(stage, "php", "conf.d", "docker-php-db.ini"), "mysqli.default_host = db\nmysqli.default_pw = "+secret+"\n")
	h.Write(filepath.Join(stage, "npmrc"), "registry=https://registry.review23.test/\n")
	for _, d := range []string{stage, filepath.Join(stage, "php"), filepath.Join(stage, "php", "conf.d")} {
		os.Chmod(d, 0o755)
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		return h.RunOver(stage, "/usr/local/etc", proj, name, args...)
	}
	if host := run("cat", "/usr/local/etc/php/conf.d/docker-php-db.ini"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /usr/local/etc; cat /usr/local/etc/npmrc; touch /usr/local/etc/x; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a secret in /usr/local/etc is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "registry.review23.test") {
		t.Errorf("npm's global npmrc in /usr/local/etc is not its private copy inside:\n%s", out)
	}
	if !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "Permission denied") {
		t.Errorf("/usr/local/etc is writable inside:\n%s", out)
	}
}

// TestReplayReview23ClaudeTopFilesJudged: of ~/.claude, the Markdown in
// commands, skills, agents and rules was judged for a credential, but
// loop.md (the prompt /loop runs) crossed whatever it held: a bearer
// token in its curl. The attack, from inside: read it, and a runbook
// CLAUDE.md imports with a GitLab token. Proof: neither is readable
// inside and --dry-run names both; keybindings.json, which holds none,
// is still shown.
func TestReplayReview23ClaudeTopFilesJudged(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "Review23TopSecret0123456789"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "loop.md"), "Check CI: `curl -H 'Authorization: Bearer "+secret+"' https://ci.corp/status`\n")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "REVIEW23-MEMORY\n@runbook.md\n")
	h.Write(filepath.Join(claude, "runbook.md"), "Clone with https://oauth2:glpat-"+secret+"@gitlab.corp/ops.git\n")
	h.Write(filepath.Join(claude, "keybindings.json"), `{"bindings": [], "note": "REVIEW23-KEYS"}`)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; cat ~/.claude/CLAUDE.md ~/.claude/keybindings.json; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in ~/.claude's loop.md or an imported file is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW23-MEMORY") || !strings.Contains(out, "REVIEW23-KEYS") {
		t.Errorf("inside, want CLAUDE.md and keybindings.json, which hold no credential:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"loop.md", "runbook.md"} {
		if !strings.Contains(dry, "~/.claude/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview23SkillScriptToken: of ~/.claude's skills, scripts
// crossed whatever they held: a notifier's Slack webhook in a .py, a
// Jenkins password in a .sh's URL. The attack, from inside: read them.
// Proof: neither is readable inside and --dry-run names both; a script
// that builds its URL from variables and calls a tokenizer is shown.
func TestReplayReview23SkillScriptToken(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "Review23ScriptSecret0123"
	skill := filepath.Join(h.Home, ".claude", "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: notify\n---\nRun scripts/notify.py.\n")
	h.Write(filepath.Join(skill, "scripts", "notify.py"), "WEBHOOK = \"https://hooks.slack.com/services/T0/B0/"+secret+"\"\n")
	h.Write(filepath.Join(skill, "scripts", "deploy.sh"), "#!/bin/sh\ncurl -X POST https://ci:"+secret+"@jenkins.corp/job/deploy/build\n")
	h.Write(filepath.Join(skill, "scripts", "count.py"), "# REVIEW23-CODE\ntoken = tokenizer.encode_batch_plus(text)\nurl = f\"https://{user}:{password}@{host}/\"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; cat ~/.claude/skills/notify/scripts/count.py; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in a skill's script is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW23-CODE") {
		t.Errorf("inside, want the skill's script that holds no credential:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"scripts/notify.py", "scripts/deploy.sh"} {
		if !strings.Contains(dry, "~/.claude/skills/notify/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/skills/notify/%s as left out:\n%s", f, dry)
		}
	}
}
