package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33InQueryKeysAndShortHeaders: what judged a command, a
// script or a variable for a credential knew a key by its name or its
// length, not what is known to hold none. A key in a URL's query under a
// name no list holds (an Azure Function's ?code= in a Stop hook's curl,
// an API gateway's ?subscription-key= in ANTHROPIC_FOUNDRY_BASE_URL, a
// ?key= in GOPROXY), a header's key shorter than 16 characters (a
// status line's curl -H 'X-Api-Key: …' of 15, a ~/bin script's
// Ocp-Apim-Subscription-Key) and a header's key of any length in a
// command's Markdown (prose was judged for a bearer token only) crossed,
// readable inside. The attack, from inside: read the settings' copy, the
// commands, the environment and the script. Proof: no key is inside, nor
// in --dry-run; what holds none (a hook whose query reads as words, a
// command whose key is a placeholder, GOPRIVATE, a plain script) still
// crosses.
func TestReplayReview33InQueryKeysAndShortHeaders(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{
  "statusLine": {"type": "command", "command": "curl -s -H 'X-Api-Key: R33hdr7f3kQ2pLm' https://status.example.com/line"},
  "hooks": {"Stop": [{"hooks": [
    {"type": "command", "command": "curl -s 'https://notify.azurewebsites.net/api/done?code=R33qryZx8qPl4mNb7Vc2Rt%3D%3D'"},
    {"type": "command", "command": "curl -s 'https://api.github.com/repos/acme/app/commits?per_page=1&sha=main' # HARMLESS-HOOK"}
  ]}]}
}
`)
	h.Write(filepath.Join(claude, "commands", "status.md"), "Check the service:\n\n```\ncurl -s -H \"X-Api-Key: R33docKq8z2PLm4x9W\" https://api.example.com/status\n```\n")
	h.Write(filepath.Join(claude, "commands", "howto.md"), "Call it with `curl -H \"X-Api-Key: YOUR_API_KEY\" https://api.example.com` HARMLESS-DOC\n")
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "notify"), "#!/bin/sh\ncurl -s -H 'Ocp-Apim-Subscription-Key: R33apim0123456789abcdef0123456789ab' https://apim.example.com/notify -d \"$1\"\n")
	h.Write(filepath.Join(bin, "greet"), "#!/bin/sh\necho HARMLESS-SCRIPT\n")
	for _, name := range []string{"notify", "greet"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin",
		"ANTHROPIC_FOUNDRY_BASE_URL=https://apim.example.com/anthropic?subscription-key=R33envq9f8e2a1b7c6d45e3a0b1c2",
		"GOPROXY=https://goproxy.corp.example/go?key=R33goZx8qPl4mNb7Vc2Rt,direct",
		"GOPRIVATE=corp.example/*",
	}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/.claude/settings.json ~/.claude/commands/*.md ~/bin/notify; greet; env; true")
	t.Log(out)
	if strings.Contains(out, "R33") {
		t.Errorf("a key in a URL's query or a short header's key is readable inside")
	}
	for _, want := range []string{"HARMLESS-HOOK", "HARMLESS-SCRIPT", "HARMLESS-DOC", "GOPRIVATE=corp.example/*"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds no credential", want)
		}
	}
	dry := h.Run(proj, env, "claudebox", "--dry-run", "--shell")
	if strings.Contains(dry, "R33") {
		t.Errorf("--dry-run names a key:\n%s", dry)
	}
}

// TestReplayReview33InPrivateKeyUnderAnyName: a private key was known by
// its file's name (id_*, *.key, *.pem), and its content was judged for
// no key at all: a skill's ssh key kept as deploy_key, a signing key
// exported as signing.asc, and one pasted into a command's Markdown
// crossed, readable inside. The attack, from inside: read the skill and
// the command. Proof: no key's body is inside; the skill's instructions
// and a public key beside it still are.
func TestReplayReview33InPrivateKeyUnderAnyName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "deploy")
	key := filepath.Join(h.Base, "deploy_key")
	h.Run(h.Home, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "deploy", "-f", key)
	b, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	// A line of the key's body, which no other file holds.
	body := strings.Split(string(b), "\n")[2]
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: deploys\n---\nRun scripts/deploy.sh HARMLESS-SKILL\n")
	h.Write(filepath.Join(skill, "deploy_key"), string(b))
	h.Write(filepath.Join(skill, "deploy_key.pub"), string(pub))
	h.Write(filepath.Join(skill, "signing.asc"), "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGR33pgpKq8z2PLm4x9WZk3wQp9LmT2vXr7BQpwZkLmTvXrBlQOYBGR33pgpKq8z2PLm4x9W\nZk3wQp9LmT2vXr7BQpwZkLmTvXrB\n=R33x\n-----END PGP PRIVATE KEY BLOCK-----\n")
	h.Write(filepath.Join(h.Home, ".claude", "commands", "ssh.md"), "Log in with this key:\n\n```\n"+string(b)+"```\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/deploy/* ~/.claude/commands/ssh.md; true")
	t.Log(out)
	if strings.Contains(out, body) || strings.Contains(out, "R33pgp") {
		t.Errorf("a private key is readable inside")
	}
	if !strings.Contains(out, "HARMLESS-SKILL") || !strings.Contains(out, strings.TrimSpace(string(pub))) {
		t.Errorf("inside, want the skill's instructions and its public key")
	}
}

// TestReplayReview33InToolCheckoutLayoutDirs: a bin/ on PATH two levels
// below the home (~/code/ops/bin, a checkout of one's own tools) widens
// to its root, whose layout's directories (lib, conf, doc, share, src,
// test, …, a JDK's or Go's names) were shown whole, unjudged: its
// lib/'s export DEPLOY_TOKEN=…, its conf/'s password, its doc/'s bearer
// token, a test fixture's password and a source's were readable inside.
// The attack, from inside: read them. Proof: none is inside; the tool
// and what it sources that holds none still run.
func TestReplayReview33InToolCheckoutLayoutDirs(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	ops := filepath.Join(h.Home, "code", "ops")
	h.Write(filepath.Join(ops, "bin", "deploy"), "#!/bin/sh\n. \"$(dirname \"$0\")/../lib/util.sh\"\nsay HARMLESS-TOOL\n")
	if err := os.Chmod(filepath.Join(ops, "bin", "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(ops, "lib", "util.sh"), "say() { echo \"$@\"; }\n")
	h.Write(filepath.Join(ops, "lib", "env.sh"), "export DEPLOY_TOKEN=R33libZk3wQp9LmT2vXr7B\n")
	h.Write(filepath.Join(ops, "conf", "prod.ini"), "[db]\npassword = R33confhunter2\n")
	h.Write(filepath.Join(ops, "doc", "runbook.md"), "Log in: curl -H 'Authorization: Bearer R33docZk3wQp9LmT2vXr7BQpwZk' https://ops.example.com\n")
	h.Write(filepath.Join(ops, "test", "fixtures", "prod.env"), "DB_PASSWORD=R33testhunter2\n")
	h.Write(filepath.Join(ops, "src", "ops", "settings.py"), "DB_PASSWORD = 'R33srchunter2'\n")
	env := []string{"PATH=" + filepath.Join(ops, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cd ~/code/ops && cat lib/* conf/* doc/* test/fixtures/* src/ops/*; deploy; true")
	t.Log(out)
	if strings.Contains(out, "R33") {
		t.Errorf("a credential in a tools checkout's lib, conf, doc, test or src is readable inside")
	}
	if !strings.Contains(out, "HARMLESS-TOOL") {
		t.Errorf("inside, want the tool to run with what it sources that holds no credential")
	}
}
