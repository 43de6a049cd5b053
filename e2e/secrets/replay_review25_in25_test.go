package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25FlagPasswords: what crosses with the user's setup
// (a hook's command, a git alias, a script of ~/bin, a skill's script)
// was searched for a password given to a name with `=` (PGPASSWORD=…,
// --password=…), not for one given to a program's option that takes it
// (`sshpass -p PASSWORD`, `mysql -pPASSWORD`, `redis-cli -a PASSWORD`,
// `docker login --password PASSWORD`), nor for HTTP's basic credentials
// (`Authorization: Basic <user:password in base64>`). The attack, from
// inside: read them. Proof: none is readable inside; the same commands
// given a variable, a prompt or standard input still are.
func TestReplayReview25FlagPasswords(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R25"
	const basic = "Y2k6aHVudGVyMlIyNQ==" // ci:hunter2R25
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"sshpass -p `+secret+` ssh deploy@db make backup"},
		{"type":"command","command":"echo REVIEW25-HOOK; sshpass -p \"$DEPLOY_PW\" ssh deploy@db make backup"}]}]}}`)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[alias]\n\tdbdump = \"!mysqldump -u root -p"+secret+" app\"\n\tdb = \"!mysql -u root -p app # REVIEW25-ALIAS\"\n")
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "flush"), "#!/bin/sh\nredis-cli -h cache -a "+secret+" FLUSHALL\n")
	h.Write(filepath.Join(bin, "cache"), "#!/bin/sh\necho REVIEW25-BIN; redis-cli -h cache -a \"$REDIS_PW\" \"$@\"\n")
	os.Chmod(filepath.Join(bin, "flush"), 0o755)
	os.Chmod(filepath.Join(bin, "cache"), 0o755)
	skill := filepath.Join(h.Home, ".claude", "skills", "release")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: release\ndescription: release\n---\nRun scripts/push.sh.\n")
	h.Write(filepath.Join(skill, "scripts", "push.sh"), "#!/bin/sh\ndocker login -u ci --password "+secret+" registry.corp\ndocker push registry.corp/app\n")
	h.Write(filepath.Join(skill, "scripts", "notify.py"), "import urllib.request\nreq = urllib.request.Request(URL, headers={\"Authorization\": \"Basic "+basic+"\"})\n")
	h.Write(filepath.Join(skill, "scripts", "login.sh"), "#!/bin/sh\n# REVIEW25-SKILL\necho \"$CI_PW\" | docker login -u ci --password-stdin registry.corp\nopenssl enc -d -aes256 -pass env:KEY -in a -out b\nsshpass -p \"$PW\" ssh host\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := "PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, "exec 2>&1; grep -r -e "+secret+" -e "+basic+" ~/.claude/settings.json ~/.gitconfig ~/bin ~/.claude/skills; cat ~/.claude/settings.json; git config --get alias.db; cache; head -2 ~/.claude/skills/release/scripts/login.sh; true")
	t.Log(out)
	if strings.Contains(out, secret) || strings.Contains(out, basic) {
		t.Errorf("a password given to a program's option is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW25-HOOK", "REVIEW25-ALIAS", "REVIEW25-BIN", "REVIEW25-SKILL"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what gives a variable, a prompt or standard input (%s):\n%s", want, out)
		}
	}
}

// TestReplayReview25SkillCodeAssignments: a skill's script or source was
// searched only for what no code writes by chance (a known service's
// token, a webhook's URL), not for a string literal given to a name that
// says a password, a secret or an API key (`DB_PASSWORD = "hunter2"` in
// a .py, `const apiKey = '…'` in a .js, `password: "…"` in a .rb), which
// a hook's command of the same text would not have shown. The attack,
// from inside: read them. Proof: none is readable inside; code that
// gives such a name a call, a variable, its own name or a tokenizer's
// token still is.
func TestReplayReview25SkillCodeAssignments(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R25"
	skill := filepath.Join(h.Home, ".claude", "skills", "db")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: db\ndescription: db\n---\nRun scripts/query.py.\n")
	h.Write(filepath.Join(skill, "scripts", "query.py"), "import psycopg\nDB_PASSWORD = \""+secret+"\"\nconn = psycopg.connect(password=DB_PASSWORD)\n")
	h.Write(filepath.Join(skill, "scripts", "search.js"), "const apiKey = '"+secret+"';\nfetch(URL, {headers: {'x-api-key': apiKey}});\n")
	h.Write(filepath.Join(skill, "scripts", "client.rb"), "Client.new(user: 'ci', password: \""+secret+"\")\n")
	h.Write(filepath.Join(skill, "scripts", "plain.py"), "# REVIEW25-CODE\nimport os\npassword = os.environ[\"DB_PASSWORD\"]\nPASSWORD = \"password\"\npad_token = \"[PAD]\"\ntoken = tokenizer.encode(text)\nsecret = \"\"\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude/skills; head -1 ~/.claude/skills/db/scripts/plain.py; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a password written in a skill's code is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW25-CODE") {
		t.Errorf("inside, want the skill's code that gives no literal:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"query.py", "search.js", "client.rb"} {
		if !strings.Contains(dry, "~/.claude/skills/db/scripts/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/skills/db/scripts/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview25UsrLocalShared: of /usr/local, its PATH entries'
// programs were judged and its top's files hidden, but its share, lib
// and include were shown whole: an administrator's deploy settings in
// /usr/local/share (creds.env with a token), a globally installed npm
// package's .npmrc with its registry's token in /usr/local/lib, a clone
// in /usr/local/src with its remote's token. The attack, from inside:
// read them. Proof: none is readable inside and --dry-run names each;
// what installed runtimes need is still shown (a man page, compressed
// too, a library, a header, a Python package, a node package's code).
func TestReplayReview25UsrLocalShared(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "Review25UsrLocalSecret"
	// Made outside /usr and mounted over the host's in a mount namespace
	// of the test's own: other tests' sessions read the host's meanwhile.
	stage := filepath.Join(h.Base, "usr-local")
	h.Write(filepath.Join(stage, "share", "deploy", "creds.env"), "DEPLOY_TOKEN="+secret+"-env\n")
	h.Write(filepath.Join(stage, "lib", "node_modules", "tool", ".npmrc"), "//registry.corp/:_authToken="+secret+"-npmrc\n")
	h.Write(filepath.Join(stage, "lib", "node_modules", "tool", "index.js"), "module.exports = 'REVIEW25-NODE'\n")
	h.Write(filepath.Join(stage, "src", "ops", ".git", "config"), "[remote \"origin\"]\n\turl = https://ci:"+secret+"-git@git.corp/ops.git\n")
	h.Write(filepath.Join(stage, "src", "ops", ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(stage, "share", "man", "man1", "tool.1"), ".TH TOOL 1\n.SH NAME\ntool \\- REVIEW25-MAN\n")
	h.Write(filepath.Join(stage, "share", "man", "man1", "gz.1.gz"), gzipped(t, []byte(".TH GZ 1\n.SH NAME\ngz \\- REVIEW25-GZ\n")))
	h.Write(filepath.Join(stage, "lib", "libtool.so.1"), "\x7fELF\x02\x01\x01\x00REVIEW25-LIB\x00")
	h.Write(filepath.Join(stage, "include", "tool.h"), "#define REVIEW25_HEADER 1\n")
	h.Write(filepath.Join(stage, "lib", "python3.11", "dist-packages", "tool", "__init__.py"), "NAME = 'REVIEW25-PY'\n")
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		return h.RunOver(stage, "/usr/local", proj, name, args...)
	}
	if host := run("cat", "/usr/local/share/deploy/creds.env"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -ra "+secret+" /usr/local; grep -rah REVIEW25 /usr/local | tr -d '\\000'; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("what an administrator put below /usr/local with a secret is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW25-NODE", "REVIEW25-MAN", "REVIEW25-GZ", "REVIEW25-LIB", "REVIEW25_HEADER", "REVIEW25-PY"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what an installed runtime needs (%s):\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, p := range []string{"/usr/local/share/deploy/creds.env", "/usr/local/lib/node_modules/tool/.npmrc", "/usr/local/src/ops/.git"} {
		if !strings.Contains(dry, p) {
			t.Errorf("--dry-run does not name %s:\n%s", p, dry)
		}
	}
}
