package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview21ManagedClaudeDir: of /etc/claude-code, the managed
// policy every user may read, its .claude (the organization's skills,
// commands, agents and rules) was bound whole, while ~/.claude's skills
// leave out a file named as credentials are kept: a managed skill's
// .env, its OAuth token.json, a script with a bearer token written in
// it, a clone's configuration with its remote's token, and any other
// file an administrator left beside the known entries were readable
// inside. The attack, from inside: read them. Proof: none is readable;
// the skill's instructions and its script (executable), the rules, still
// are; --dry-run names what it leaves out.
func TestReplayReview21ManagedClaudeDir(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "REVIEW21MANAGEDSKILLSECRET"
	stage := filepath.Join(h.Base, "etc")
	dot := filepath.Join(stage, "claude-code", ".claude")
	skill := filepath.Join(dot, "skills", "deploy")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: REVIEW21-SKILL-BODY\n---\nRun scripts/deploy.sh.\n")
	h.Write(filepath.Join(skill, "scripts", "deploy.sh"), "#!/bin/sh\necho REVIEW21-DEPLOY-SCRIPT\n")
	if err := os.Chmod(filepath.Join(skill, "scripts", "deploy.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(skill, ".env"), "DEPLOY_TOKEN="+secret+"-env\n")
	h.Write(filepath.Join(skill, "token.json"), `{"access_token": "`+secret+`-oauth"}`)
	h.Write(filepath.Join(skill, "scripts", "notify.sh"), "#!/bin/sh\ncurl -H 'Authorization: Bearer "+secret+"bearerABCDEF0123456789' https://hooks.example.com\n")
	h.Write(filepath.Join(dot, "skills", "team", ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:"+secret+"-clone@git.example.com/skills.git\n")
	h.Write(filepath.Join(dot, "skills", "team", ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(dot, "skills", "team", "lint", "SKILL.md"), "---\nname: lint\ndescription: REVIEW21-TEAM-SKILL\n---\n")
	h.Write(filepath.Join(dot, "rules", "style.md"), "REVIEW21-MANAGED-RULE\n")
	h.Write(filepath.Join(dot, "deploy-notes.txt"), "vault token "+secret+"-beside\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("grep", "-r", secret, "/etc/claude-code"); strings.Count(host, secret) != 5 {
		t.Fatalf("the user cannot read the staged policy on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /etc; cat /etc/claude-code/.claude/skills/deploy/SKILL.md /etc/claude-code/.claude/skills/team/lint/SKILL.md /etc/claude-code/.claude/rules/style.md; /etc/claude-code/.claude/skills/deploy/scripts/deploy.sh; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a credential in the managed policy's .claude is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW21-SKILL-BODY", "REVIEW21-TEAM-SKILL", "REVIEW21-MANAGED-RULE", "REVIEW21-DEPLOY-SCRIPT"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the managed .claude's %s:\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, want := range []string{"skills/deploy/.env", "skills/deploy/token.json", "skills/deploy/scripts/notify.sh", ".claude/deploy-notes.txt"} {
		if !strings.Contains(dry, want) {
			t.Errorf("--dry-run does not name %s as left out:\n%s", want, dry)
		}
	}
}

// TestReplayReview21WidenedRootDirectories: of a toolchain's root a
// PATH entry's bin/ widens to (~/work/devtools above
// ~/work/devtools/bin), only its files were judged: every directory but
// a dot's was shown whole, so a checkout of one's own tools showed its
// config/ with a token, its secrets/ and its deployment's notes. The
// attack, from inside: read them. Proof: none is readable; the program
// still runs with its lib/ and share/; --dry-run names what is left out.
func TestReplayReview21WidenedRootDirectories(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW21-TOOLROOT-DIR-SECRET"
	root := filepath.Join(h.Home, "work", "devtools")
	h.Write(filepath.Join(root, "bin", "deploy"), "#!/bin/sh\n. \"$(dirname \"$0\")/../lib/common.sh\"\necho DEPLOY-RUNS \"$COMMON\" \"$(cat \"$(dirname \"$0\")/../share/banner\")\"\n")
	if err := os.Chmod(filepath.Join(root, "bin", "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(root, "lib", "common.sh"), "COMMON=LIB-SOURCED\n")
	h.Write(filepath.Join(root, "share", "banner"), "SHARE-READ\n")
	h.Write(filepath.Join(root, "config", "prod.yaml"), "api_token: "+secret+"-config\n")
	h.Write(filepath.Join(root, "secrets", "deploy.key"), secret+"-key\n")
	h.Write(filepath.Join(root, "notes", "runbook.md"), "root password "+secret+"-notes\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := []string{"PATH=" + filepath.Join(root, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	// The launch's own notices with what ran inside.
	b, err := h.Command(proj, path, "claudebox", "--shell", "-c", "exec 2>&1; deploy; grep -r "+secret+" "+root+"; true").CombinedOutput()
	out := string(b)
	t.Log(out)
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	if strings.Contains(out, secret) {
		t.Errorf("a directory beside a PATH toolchain's programs is readable inside:\n%s", out)
	}
	// The launch names what it hides, once: a tool that needs it fails.
	if !strings.Contains(out, "not shown inside, beside what is shown of the directory: ") || !strings.Contains(out, filepath.Join(root, "config")) {
		t.Errorf("the launch does not name the toolchain's directories it hides:\n%s", out)
	}
	if !strings.Contains(out, "DEPLOY-RUNS LIB-SOURCED SHARE-READ") {
		t.Errorf("inside, want the toolchain's program, its lib/ and its share/:\n%s", out)
	}
	dry := h.Run(proj, path, "claudebox", "--dry-run", "--shell")
	for _, d := range []string{"config", "secrets", "notes"} {
		if !strings.Contains(dry, filepath.Join(root, d)) {
			t.Errorf("--dry-run does not name %s as not shown:\n%s", d, dry)
		}
	}
}

// TestReplayReview21ClaudeMarkdownNotImported: of ~/.claude's entries,
// every Markdown file was shown, for CLAUDE.md imports them with @; but
// one it does not import is read by nothing there (a user's deployment
// notes, a runbook with a vault token), and an imported one with a
// credential written in it is blanked, while one not imported was shown
// whatever it held. The attack, from inside: read it. Proof: it is not
// readable; the file CLAUDE.md imports still is; --dry-run names it.
func TestReplayReview21ClaudeMarkdownNotImported(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW21-CLAUDE-NOTES-SECRET"
	claudeDir := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claudeDir, "CLAUDE.md"), "Follow @style.md\n")
	h.Write(filepath.Join(claudeDir, "style.md"), "REVIEW21-IMPORTED-STYLE\n")
	h.Write(filepath.Join(claudeDir, "prod-runbook.md"), "vault root token: "+secret+"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/style.md; grep -r "+secret+" ~/.claude; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a Markdown file in ~/.claude that CLAUDE.md does not import is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW21-IMPORTED-STYLE") {
		t.Errorf("inside, want the file CLAUDE.md imports:\n%s", out)
	}
	if dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell"); !strings.Contains(dry, "prod-runbook.md") {
		t.Errorf("--dry-run does not name prod-runbook.md as not shown:\n%s", dry)
	}
}

// TestReplayReview21CommandDirectory: the agent's program, where it lies
// under the home, was shown with its whole directory: a claude binary
// downloaded into ~/Downloads and linked from ~/.local/bin showed every
// other download beside it (a bank's statement, a key). The attack,
// from inside: read them. Proof: none is readable; the program still
// runs, through its link.
func TestReplayReview21CommandDirectory(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW21-DOWNLOADS-SECRET"
	downloads := filepath.Join(h.Home, "Downloads")
	// What the agent, prompt-injected, runs as it starts.
	h.Write(filepath.Join(downloads, "claude-2.1.330-linux-x64"), "#!/bin/sh\nexec 2>&1\necho REVIEW21-CLAUDE-RUNS\ngrep -r REVIEW21-DOWNLOADS-\"SEC\"RET \"$HOME/Downloads\"\nls \"$HOME/Downloads\"\ntrue\n")
	if err := os.Chmod(filepath.Join(downloads, "claude-2.1.330-linux-x64"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(downloads, "statement-2026-11.csv"), "iban,"+secret+"-bank\n")
	h.Write(filepath.Join(downloads, "keys", "prod.pem"), secret+"-key\n")
	bin := filepath.Join(h.Home, ".local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(downloads, "claude-2.1.330-linux-x64"), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin", "ANTHROPIC_API_KEY=sk-ant-api03-REVIEW21KEY0123456789"}
	out := h.Run(proj, env, "claudebox", "-p", "hi")
	t.Log(out)
	if strings.Contains(out, secret) || strings.Contains(out, "statement-2026-11.csv") {
		t.Errorf("what lies beside the agent's program is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW21-CLAUDE-RUNS") {
		t.Errorf("inside, want the agent's program to run:\n%s", out)
	}
}
