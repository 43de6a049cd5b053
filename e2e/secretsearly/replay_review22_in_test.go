package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22AllowlistedVariableCredential: of the variables the
// allowlist passes by name, only the toolchain's and the providers' URLs
// had their values judged; the others crossed whatever they held: an
// EDITOR with a password on its command line, a model option of Claude
// Code's with a key in it. The attack, from inside: read the environment.
// Proof: neither value is inside or printed, the launch names both among
// the variables not passed; a PATH whose entry says "oauth" and a LANG
// still pass.
func TestReplayReview22AllowlistedVariableCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "Review22EnvSecretValue"
	path := "/opt/oauth:/opt/company-tools/bin:" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	env := []string{
		"EDITOR=code --wait --password=" + secret + "Editor",
		"ANTHROPIC_CUSTOM_MODEL_OPTION=gateway/claude?api_key=" + secret + "Model",
		"PATH=" + path,
		"LANG=C.UTF-8",
	}
	b, err := h.Command(proj, env, "claudebox", "--shell", "-c", "env").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	if strings.Contains(out, secret) {
		t.Errorf("a credential in an allowlisted variable is inside or printed:\n%s", out)
	}
	for _, want := range []string{":/opt/oauth:/opt/company-tools/bin:", "LANG=C.UTF-8"} {
		if !strings.Contains(out, want) {
			t.Errorf("%s, which holds no credential, was not passed:\n%s", want, out)
		}
	}
	_, notPassed, _ := strings.Cut(out, "variables not passed")
	notPassed, _, _ = strings.Cut(notPassed, "\n")
	if !strings.Contains(notPassed, "EDITOR") || !strings.Contains(notPassed, "ANTHROPIC_CUSTOM_MODEL_OPTION") {
		t.Errorf("the launch does not name EDITOR and ANTHROPIC_CUSTOM_MODEL_OPTION as not passed:\n%s", out)
	}
}

// TestReplayReview22EtcShellStartupCredential: of /etc, the shells'
// startup files were shown as they are, and an administrator's proxy
// password (export http_proxy=http://u:PASSWORD@proxy) or a token
// exported there for every user was readable inside; /etc/environment's
// copy kept an allowlisted variable whatever it held. The attack, from
// inside: read them. Proof: no secret is readable inside, --dry-run names
// the startup files as not shown, and a startup file with none still is.
func TestReplayReview22EtcShellStartupCredential(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc's files needs root")
	}
	const secret = "Review22EtcSecretValue"
	// Made outside /etc and mounted over the host's in a mount namespace of
	// the test's own: other tests' sessions read the host's /etc meanwhile.
	stage := filepath.Join(h.Base, "etc")
	over := map[string]string{
		"/etc/profile":     "profile",
		"/etc/bash.bashrc": "bash.bashrc",
		"/etc/environment": "environment",
	}
	h.Write(filepath.Join(stage, "profile"), "export PATH=/usr/local/bin:/usr/bin:/bin\nexport http_proxy=http://corp:"+secret+"Proxy@proxy.corp:3128\n")
	h.Write(filepath.Join(stage, "bash.bashrc"), "# REVIEW22-HARMLESS\nPS1='\\u@\\h:\\w\\$ '\n")
	h.Write(filepath.Join(stage, "environment"), "EDITOR=\"deploy-edit --token="+secret+"Environment\"\nLANG=C.UTF-8\n")
	os.Chmod(stage, 0o755)
	var mounts []string
	for dest, src := range over {
		if _, err := os.Stat(dest); err != nil {
			t.Skipf("no %s to mount over", dest)
		}
		mounts = append(mounts, `mount --bind `+filepath.Join(stage, src)+` `+dest)
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, name, args...)
		c.Args = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", strings.Join(mounts, " && ") + ` && exec "$@"`, "sh"}, c.Args...)
		c.Path = "/usr/bin/unshare"
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	if host := run("cat", "/etc/profile", "/etc/environment"); strings.Count(host, secret) != 2 {
		t.Fatalf("the user cannot read the staged files on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; cat /etc/profile /etc/bash.bashrc /etc/environment; env; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a secret in a shell's startup file in /etc is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW22-HARMLESS") {
		t.Errorf("/etc/bash.bashrc, which holds no credential, is not shown:\n%s", out)
	}
	dry := run("claudebox", "--dry-run", "--shell")
	if !strings.Contains(dry, "# not shown, of /etc") || !strings.Contains(dry, " profile") {
		t.Errorf("--dry-run does not name /etc/profile as not shown:\n%s", dry)
	}
}

// TestReplayReview22SkillSettingsCredential: of ~/.claude's skills and
// agents, a file was left out only by its name (an .env, a token.json):
// a skill's settings under an ordinary name crossed whatever they held
// (config.yaml's password, a servers.json's apiKey, an auth file written
// as .netrc is). The attack, from inside: read them. Proof: none is
// readable inside, --dry-run names each; the skill's SKILL.md and a
// settings file with no credential (max_tokens: 4096, a password taken
// from a variable) still are.
func TestReplayReview22SkillSettingsCredential(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2Review22"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: deploys\n---\nRun deploy.py with config.yaml.\n")
	h.Write(filepath.Join(claude, "skills", "deploy", "config.yaml"), "server: deploy.corp\nuser: ci\npassword: "+secret+"\n")
	h.Write(filepath.Join(claude, "skills", "deploy", "servers.json"), `{"servers": [{"url": "https://api.corp", "apiKey": "`+secret+`"}]}`)
	h.Write(filepath.Join(claude, "skills", "deploy", "auth"), "machine api.corp login ci password "+secret+"\n")
	h.Write(filepath.Join(claude, "skills", "deploy", "limits.yaml"), "max_tokens: 4096\npassword: ${DEPLOY_PASSWORD}\nuse_token: true\nHARMLESS: REVIEW22-LIMITS\n")
	h.Write(filepath.Join(claude, "agents", "ops", "settings.toml"), "[db]\npassword = \""+secret+"\"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; cat ~/.claude/skills/deploy/SKILL.md ~/.claude/skills/deploy/limits.yaml; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in a skill's or an agent's settings is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "Run deploy.py") || !strings.Contains(out, "REVIEW22-LIMITS") {
		t.Errorf("inside, want the skill's SKILL.md and its settings with no credential:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"skills/deploy/config.yaml", "skills/deploy/servers.json", "skills/deploy/auth", "agents/ops/settings.toml"} {
		if !strings.Contains(dry, "~/.claude/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview22CommandDocumentCredential: of ~/.claude's commands,
// skills and agents, Markdown crossed whatever it held: a /notify
// command with its Slack webhook's URL, a skill's SKILL.md with a bearer
// token in the curl it shows. The attack, from inside: read them. Proof:
// neither is readable inside and --dry-run names both; Markdown that
// only mentions auth or a mail address still is.
func TestReplayReview22CommandDocumentCredential(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "Review22DocSecret0123456789"
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "commands", "notify.md"), "Post a summary to https://hooks.slack.com/services/T0000/B0000/"+secret+"\n")
	h.Write(filepath.Join(claude, "skills", "status", "SKILL.md"), "---\nname: status\ndescription: status\n---\nRun `curl -H 'Authorization: Bearer "+secret+"' https://status.corp/api`\n")
	h.Write(filepath.Join(claude, "commands", "review.md"), "REVIEW22-DOC. Auth: src/middleware/authentication.ts; questions to alice@example.com.\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude; cat ~/.claude/commands/review.md; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in a command's or a skill's Markdown is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW22-DOC") {
		t.Errorf("inside, want the command with no credential:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"commands/notify.md", "skills/status/SKILL.md"} {
		if !strings.Contains(dry, "~/.claude/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/%s as left out:\n%s", f, dry)
		}
	}
}
