package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// insideAgent runs the sandbox of agent (codex, gemini) in proj, its
// program a script of the test's that runs script: the agent's view of
// its configuration directory, not the agent, is what is looked at. It
// returns the script's output after what the launch said.
func insideAgent(t *testing.T, h *harness.Host, proj, agent, script string) string {
	t.Helper()
	fake := filepath.Join(h.Base, "agentbin", agent)
	if err := os.MkdirAll(filepath.Dir(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexec 2>&1\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	env := []string{"PATH=" + filepath.Dir(fake) + ":" + h.Bin + ":/usr/bin:/bin", "OPENAI_API_KEY=sk-proj-R36phantomOnly", "GEMINI_API_KEY=AIzaSyR36phantomOnlyR36phantomOnlyR36ph"}
	out, err := h.Command(proj, env, "claudebox", "--agent", agent).CombinedOutput()
	if err != nil {
		t.Fatalf("claudebox --agent %s: %v\n%s", agent, err, out)
	}
	return string(out)
}

// TestReplayReview36InCommandWordsOfAList: a command's user and
// password were looked for as a shell writes them, -u ci:PASSWORD, its
// words parted by spaces. Codex keeps the commands you always allow as
// a list of words, prefix_rule(pattern=["curl", "-u", "ci:…"]), in
// ~/.codex/rules, its notify command in config.toml is one, and Gemini
// CLI's policies may give a command as one ([…] of commandPrefix):
// curl's -u and --user, httpie's -a and lftp's -u user,password so
// written crossed, judged as settings and commands are. The
// attack, from inside: read them. Proof: none is inside and the launch
// names each; a rule that holds none still is.
func TestReplayReview36InCommandWordsOfAList(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	codex := filepath.Join(h.Home, ".codex", "rules")
	h.Write(filepath.Join(codex, "default.rules"), `prefix_rule(pattern=["curl", "-u", "deploy:R36listCurl"], decision="allow")`+"\n")
	h.Write(filepath.Join(codex, "user.rules"), `prefix_rule(pattern=["curl","--user","ci:R36listUser"], decision="allow")`+"\n")
	h.Write(filepath.Join(codex, "httpie.rules"), `prefix_rule(pattern=["http", "-a", "ops:R36listHttpie", "GET"], decision="allow")`+"\n")
	h.Write(filepath.Join(codex, "lftp.rules"), `prefix_rule(pattern=["lftp", "-u", "ci,R36listLftp", "ftp.example.com"], decision="allow")`+"\n")
	h.Write(filepath.Join(codex, "git.rules"), `prefix_rule(pattern=["git", "-C", "R36-HARMLESS-RULE", "status"], decision="allow")`+"\n")
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), "model = \"gpt-5\"\nnotify = [\"curl\", \"-u\", \"ci:R36listNotify\", \"https://ci.example.com/hooks/codex\"]\n")
	gemini := filepath.Join(h.Home, ".gemini", "policies")
	h.Write(filepath.Join(gemini, "auto-saved.toml"), "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [\"curl\", \"-u\", \"deploy:R36listGemini\"]\ndecision = \"allow\"\npriority = 100\n")
	h.Write(filepath.Join(gemini, "git.toml"), "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git log R36-HARMLESS-POLICY\"\ndecision = \"allow\"\npriority = 100\n")
	grep := "grep -rhoa 'R36[A-Za-z-]*' ~/.codex ~/.gemini 2>/dev/null; true"
	out := insideAgent(t, h, proj, "codex", grep) + insideAgent(t, h, proj, "gemini", grep)
	t.Log(out)
	for _, secret := range []string{"R36listCurl", "R36listUser", "R36listHttpie", "R36listLftp", "R36listGemini", "R36listNotify"} {
		if strings.Contains(out, secret) {
			t.Errorf("a password given to a command as a list's words is readable inside (%s)", secret)
		}
	}
	for _, want := range []string{"R36-HARMLESS-RULE", "R36-HARMLESS-POLICY"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
	for _, f := range []string{"rules/default.rules", "rules/lftp.rules", "policies/auto-saved.toml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview36InGeminiShellInjection: a Gemini CLI custom
// command's prompt runs what !{…} holds as a shell command when the
// command is typed, as Claude Code's !`…` does; a program's password
// option was looked for only where the program's name began a word, or
// followed ( $ or `, and its value ended at a quote or a space: the {
// before and the } after it hid sshpass -p, mysql -p, redis-cli -a,
// ldapsearch -w, vault login's token and htpasswd -b's password, which
// crossed in ~/.gemini/commands; and in settings, read a line at a time
// where a line holds a hint of a credential, a program's password
// option on a line with no other (ldapsearch -w …) crossed too. The
// attack, from inside: read them.
// Proof: none is inside and the launch names each; a command that holds
// none still is.
func TestReplayReview36InGeminiShellInjection(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	commands := filepath.Join(h.Home, ".gemini", "commands")
	for name, prompt := range map[string]string{
		"ssh.toml":    `prompt = "Check the host: !{sshpass -p R36bangSshpass ssh ops@db uptime}"`,
		"mysql.toml":  `prompt = "Row counts: !{mysql -uops -pR36bangMysql shop -e 'select 1'}"`,
		"redis.toml":  `prompt = "Queue: !{redis-cli -a R36bangRedis llen jobs}"`,
		"ldap.toml":   "prompt = \"\"\"\nUsers:\n!{ldapsearch -x -D cn=admin -w R36bangLdap -b dc=corp}\n\"\"\"",
		"vault.toml":  `prompt = "Secrets: !{vault login R36bangVaultToken}"`,
		"htpass.toml": `prompt = "Add: !{htpasswd -b .htpasswd ops R36bangHtpasswd}"`,
		"users.toml":  `prompt = "Who may log in: ldapsearch -x -D cn=admin -w R36plainLdap -b dc=corp"`,
		"log.toml":    `prompt = "Summarise: !{git log -5 --format=R36-HARMLESS-COMMAND}"`,
	} {
		h.Write(filepath.Join(commands, name), "description = \"x\"\n"+prompt+"\n")
	}
	out := insideAgent(t, h, proj, "gemini", "grep -rhoa 'R36[A-Za-z-]*' ~/.gemini/commands 2>/dev/null; true")
	t.Log(out)
	for _, secret := range []string{"R36bangSshpass", "R36bangMysql", "R36bangRedis", "R36bangLdap", "R36bangVaultToken", "R36bangHtpasswd", "R36plainLdap"} {
		if strings.Contains(out, secret) {
			t.Errorf("a password in a Gemini command's !{…} is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R36-HARMLESS-COMMAND") {
		t.Errorf("inside, want the command whose !{…} holds no credential")
	}
	for _, f := range []string{"commands/ssh.toml", "commands/vault.toml", "commands/users.toml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview36InSudoPasswordInClaudeCommand: a password echoed
// into sudo -S was found after a backquote, not after Claude Code's !`,
// which runs a slash command's shell line as the command is typed: a
// command's !`echo … | sudo -S systemctl restart app` crossed. The
// attack, from inside: read it. Proof: it is not inside and the launch
// names the file; a command that pipes no password into sudo still is.
func TestReplayReview36InSudoPasswordInClaudeCommand(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	commands := filepath.Join(h.Home, ".claude", "commands")
	h.Write(filepath.Join(commands, "restart.md"), "---\ndescription: restarts the app\n---\nStatus after: !`echo R36sudoPw | sudo -S systemctl restart app`\n")
	h.Write(filepath.Join(commands, "status.md"), "---\ndescription: the app's status\n---\nStatus: !`systemctl status app | head -3` R36-HARMLESS-STATUS\n")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R36[A-Za-z-]*' ~/.claude/commands; true")
	c.Stderr = &stderr
	b, err := c.Output()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	out := string(b)
	t.Log(out, stderr.String())
	if strings.Contains(out, "R36sudoPw") {
		t.Errorf("a password echoed into sudo -S in a Claude command's !`…` is readable inside")
	}
	if !strings.Contains(out, "R36-HARMLESS-STATUS") {
		t.Errorf("inside, want the command that gives sudo no password")
	}
	if !strings.Contains(stderr.String(), "commands/restart.md") {
		t.Errorf("the launch does not name commands/restart.md")
	}
}

// TestReplayReview36InMarkdownFrontMatter: Markdown was judged as prose,
// where a literal given to a name is written by chance, its front matter
// too; but Claude Code reads an agent's MCP servers (their env and
// headers) and an agent's or a skill's hooks (their commands) from the
// YAML there, settings, not prose: an agent's DB_PASSWORD and X-Api-Key
// and a skill's hook's PGPASSWORD=… crossed in ~/.claude. The attack,
// from inside: read them. Proof: none is inside and the launch names
// each file; an agent whose front matter holds none still is.
func TestReplayReview36InMarkdownFrontMatter(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "agents", "dba.md"), `---
name: dba
description: Answers questions about the orders database
mcpServers:
  orders:
    command: npx
    args: ["-y", "@example/postgres-mcp"]
    env:
      DB_HOST: db.internal
      DB_PASSWORD: R36fmDbPassword
---
You answer questions about the orders database.
`)
	h.Write(filepath.Join(claude, "agents", "search.md"), `---
name: search
description: Searches the company wiki
mcpServers:
  wiki:
    type: http
    url: https://wiki.example.com/mcp
    headers:
      X-Api-Key: R36fmWikiKey
---
You search the wiki.
`)
	h.Write(filepath.Join(claude, "skills", "release", "SKILL.md"), `---
name: release
description: Cuts a release
hooks:
  PostToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: PGPASSWORD=R36fmHookPg psql -h db.internal -c 'insert into releases default values'
---
Cut the release.
`)
	h.Write(filepath.Join(claude, "agents", "docs.md"), "---\nname: docs\ndescription: Writes R36-HARMLESS-AGENT docs\ntools: Read, Grep\nmodel: sonnet\n---\nYou write docs.\n")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R36[A-Za-z-]*' ~/.claude/agents ~/.claude/skills; true")
	c.Stderr = &stderr
	b, err := c.Output()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	out := string(b)
	t.Log(out, stderr.String())
	for _, secret := range []string{"R36fmDbPassword", "R36fmWikiKey", "R36fmHookPg"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential in a Markdown file's front matter is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R36-HARMLESS-AGENT") {
		t.Errorf("inside, want the agent whose front matter holds no credential")
	}
	for _, f := range []string{"agents/dba.md", "agents/search.md", "release/SKILL.md"} {
		if !strings.Contains(stderr.String(), f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview36InScriptCallArguments: a script gives a program its
// words as a list (Python's subprocess.run(["curl", "-u", "ci:…"]),
// Node's execFileSync("sshpass", ["-p", "…"])) and a library its user
// and password as a call's two arguments (requests' auth=("ci", "…"),
// smtplib's .login("ops@…", "…")); a password was looked for only as a
// shell's command line writes it, and in a name's assignment, and these
// crossed in a skill's scripts. The attack, from inside: read them.
// Proof: none is inside and the launch names each; a script that runs
// git so still is.
func TestReplayReview36InScriptCallArguments(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "report")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: report\ndescription: sends the weekly report\n---\nRun the scripts beside.\n")
	h.Write(filepath.Join(skill, "fetch.py"), "import subprocess\n\nsubprocess.run([\"curl\", \"-sf\", \"-u\", \"ci:R36pyCurl\", \"https://ci.example.com/report\"], check=True)\n")
	h.Write(filepath.Join(skill, "upload.py"), "import requests\n\nrequests.post(\"https://files.example.com/up\", auth=(\"ci\", \"R36pyAuthTuple\"), data=open(\"r.pdf\", \"rb\"))\n")
	h.Write(filepath.Join(skill, "mail.py"), "import smtplib\n\nwith smtplib.SMTP_SSL(\"smtp.example.com\") as s:\n    s.login(\"ops@example.com\", \"R36pySmtpLogin\")\n")
	h.Write(filepath.Join(skill, "sync.js"), "const { execFileSync } = require('child_process');\nexecFileSync('sshpass', ['-p', 'R36jsSshpass', 'rsync', '-a', 'out/', 'ops@h:/srv/']);\n")
	h.Write(filepath.Join(skill, "status.py"), "import subprocess\n\n# R36-HARMLESS-SCRIPT\nsubprocess.run([\"git\", \"-C\", \"/srv\", \"status\"], check=True)\n")
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R36[A-Za-z-]*' ~/.claude/skills; true")
	c.Stderr = &stderr
	b, err := c.Output()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	out := string(b)
	t.Log(out, stderr.String())
	for _, secret := range []string{"R36pyCurl", "R36pyAuthTuple", "R36pySmtpLogin", "R36jsSshpass"} {
		if strings.Contains(out, secret) {
			t.Errorf("a password a script gives a program or a call is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R36-HARMLESS-SCRIPT") {
		t.Errorf("inside, want the script that gives no password")
	}
	for _, f := range []string{"report/fetch.py", "report/upload.py", "report/mail.py", "report/sync.js"} {
		if !strings.Contains(stderr.String(), f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview36InFilesGitReads: the files the user's git
// configuration names that git reads (core.excludesFile,
// core.attributesFile, commit.template, gpg.ssh.allowedSignersFile) and
// ~/.config/git's ignore and attributes were shown whole, live, unless a
// password-like word or a URL's credential was in them: a project token
// in ~/.gitmessage and an OpenSSH private key kept in an excludes file
// were readable inside. The attack, from inside: read them. Proof:
// neither secret is inside, the launch names both files, and what holds
// none (the attributes file, the allowed signers) is still there for git.
func TestReplayReview36InFilesGitReads(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[commit]\n\ttemplate = ~/.gitmessage\n[core]\n\texcludesFile = ~/.gitignore_global\n\tattributesFile = ~/.gitattributes_global\n[gpg \"ssh\"]\n\tallowedSignersFile = ~/.config/git/allowed_signers\n")
	h.Write(filepath.Join(h.Home, ".gitmessage"), "# Subject\n\n# the release bot: sk-proj-R36gitTemplateR36gitTemplateR36gitTemplate00\n")
	h.Write(filepath.Join(h.Home, ".gitignore_global"), "*.swp\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nR36gitExcludesKeyR36gitExcludesKey\n-----END OPENSSH PRIVATE KEY-----\n")
	h.Write(filepath.Join(h.Home, ".gitattributes_global"), "*.ipynb diff=R36-HARMLESS-ATTRIBUTES\n")
	h.Write(filepath.Join(h.Home, ".config", "git", "allowed_signers"), "alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEcrs2stIIkarhmE3QaB/tzZiotlQZpk3oZb29DVb1uA R36-HARMLESS-SIGNERS\n")
	h.Chown()
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "cat ~/.gitmessage ~/.gitignore_global ~/.gitattributes_global ~/.config/git/allowed_signers 2>/dev/null; true")
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, stderr.String())
	}
	for _, secret := range []string{"R36gitTemplate", "R36gitExcludesKey"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%s is readable inside:\n%s", secret, out)
		}
	}
	for _, shown := range []string{"R36-HARMLESS-ATTRIBUTES", "R36-HARMLESS-SIGNERS"} {
		if !strings.Contains(string(out), shown) {
			t.Errorf("%s, which holds no credential, is not inside:\n%s", shown, out)
		}
	}
	for _, named := range []string{"~/.gitmessage", "~/.gitignore_global"} {
		if !strings.Contains(stderr.String(), named) {
			t.Errorf("the launch does not name %s:\n%s", named, stderr.String())
		}
	}
}
