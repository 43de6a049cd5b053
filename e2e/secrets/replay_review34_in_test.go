package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34InUsrLocalToolchainDirs: of a directory below
// /usr/local with a bin (an installed toolchain), only what lies at its
// top was judged; its directories were shown whole, as a vendor's SDK's
// are. A server an administrator unpacked there keeps its settings in
// them: Tomcat's conf/tomcat-users.xml with the manager's password,
// Kafka's config/client.properties with its SASL password, and a
// clone's remote token below its top (plugins/x/.git/config) were
// readable inside. The attack, from inside: read them. Proof: none is
// inside, and --dry-run names them; what the servers run with (their
// programs, a settings file holding none, a jar) and a vendor's
// toolchain (Go) still are.
func TestReplayReview34InUsrLocalToolchainDirs(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R34usrlocal"
	stage := filepath.Join(h.Base, "usr-local")
	h.Write(filepath.Join(stage, "tomcat", "bin", "catalina.sh"), "#!/bin/sh\necho R34-CATALINA\n")
	h.Write(filepath.Join(stage, "tomcat", "conf", "tomcat-users.xml"), "<tomcat-users>\n  <user username=\"admin\" password=\""+secret+"Tc9\" roles=\"manager-gui\"/>\n</tomcat-users>\n")
	h.Write(filepath.Join(stage, "tomcat", "conf", "server.xml"), "<Server port=\"8005\" shutdown=\"SHUTDOWN\"><!-- R34-SERVER --></Server>\n")
	h.Write(filepath.Join(stage, "tomcat", "lib", "catalina.jar"), zipOf(t, map[string]string{"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\nImplementation-Title: R34-JAR\n"}))
	h.Write(filepath.Join(stage, "kafka", "bin", "kafka-topics.sh"), "#!/bin/sh\necho R34-KAFKA\n")
	h.Write(filepath.Join(stage, "kafka", "config", "client.properties"), "security.protocol=SASL_SSL\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\" password=\""+secret+"Kf9\";\n")
	h.Write(filepath.Join(stage, "tools", "bin", "run"), "#!/bin/sh\necho R34-TOOLS\n")
	h.Write(filepath.Join(stage, "tools", "plugins", "x", ".git", "config"), "[remote \"origin\"]\n\turl = https://ci:"+secret+"Git@git.corp/x.git\n")
	h.Write(filepath.Join(stage, "tools", "plugins", "x", ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(stage, "go", "bin", "go"), "\x7fELF\x02\x01\x01\x00R34-GO\x00")
	h.Write(filepath.Join(stage, "go", "go.env"), "GOPROXY=https://proxy.golang.org,direct\n")
	h.Write(filepath.Join(stage, "go", "src", "fmt", "print.go"), "package fmt // R34-SRC\n")
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/tomcat/conf/tomcat-users.xml",
		script: "exec 2>&1; grep -ra " + secret + " /usr/local; grep -rah R34- /usr/local | tr -d '\\000'; /usr/local/tomcat/bin/catalina.sh; true",
		where:  "in an installed server's directories below /usr/local",
		want:   []string{"R34-CATALINA", "R34-SERVER", "R34-JAR", "R34-KAFKA", "R34-TOOLS", "R34-GO", "R34-SRC"},
		hidden: []string{"/usr/local/tomcat/conf/tomcat-users.xml", "/usr/local/kafka/config/client.properties", "/usr/local/tools/plugins/x/.git"},
	}.check(t, h)
}

// TestReplayReview34InHadoopProperties: the judges knew a credential's
// name only beside its value (password: …, <password>…</password>,
// name=value). Hadoop's XML names a property in one element and gives
// its value in the next, and Spark's spark-defaults.conf sets a property
// with spaces alone: the S3 secret key of /usr/local/hadoop's
// core-site.xml, the metastore's password in hive-site.xml and Spark's
// spark.hadoop.fs.s3a.secret.key, judged once their directories were,
// were readable inside. The attack, from inside: read them. Proof: none
// is inside and --dry-run names them; the same files' properties that
// hold none, in a file of their own, still are, and so are the programs.
func TestReplayReview34InHadoopProperties(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "R34hadoop"
	stage := filepath.Join(h.Base, "usr-local")
	property := func(name, value string) string {
		return "  <property>\n    <name>" + name + "</name>\n    <value>" + value + "</value>\n  </property>\n"
	}
	h.Write(filepath.Join(stage, "hadoop", "bin", "hadoop"), "#!/bin/sh\necho R34-HADOOP\n")
	h.Write(filepath.Join(stage, "hadoop", "etc", "hadoop", "core-site.xml"), "<configuration>\n"+
		property("fs.defaultFS", "hdfs://namenode:9000")+property("fs.s3a.access.key", "R34ACCESSKEYID")+property("fs.s3a.secret.key", secret+"S3kWj8fQ2pLm")+"</configuration>\n")
	h.Write(filepath.Join(stage, "hadoop", "etc", "hadoop", "hive-site.xml"), "<configuration>\n"+
		property("javax.jdo.option.ConnectionUserName", "hive")+property("javax.jdo.option.ConnectionPassword", secret+"Hv")+"</configuration>\n")
	h.Write(filepath.Join(stage, "hadoop", "etc", "hadoop", "hdfs-site.xml"), "<configuration>\n"+
		property("dfs.replication", "3")+property("hadoop.security.authentication", "simple")+"<!-- R34-HDFS -->\n</configuration>\n")
	h.Write(filepath.Join(stage, "spark", "bin", "spark-submit"), "#!/bin/sh\necho R34-SPARK\n")
	h.Write(filepath.Join(stage, "spark", "conf", "spark-defaults.conf"), "spark.master  yarn\nspark.hadoop.fs.s3a.secret.key  "+secret+"Sp9xQ\n")
	h.Write(filepath.Join(stage, "spark", "conf", "log4j2.properties"), "rootLogger.level = info\nappender.console.name  console\n# R34-LOG4J\n")
	usrLocalStaged{
		stage: stage, secret: secret, hostFile: "/usr/local/hadoop/etc/hadoop/core-site.xml",
		script: "exec 2>&1; grep -ra " + secret + " /usr/local; grep -rah R34- /usr/local; /usr/local/hadoop/bin/hadoop; /usr/local/spark/bin/spark-submit; true",
		where:  "in Hadoop's or Spark's settings below /usr/local",
		want:   []string{"R34-HDFS", "R34-LOG4J", "R34-HADOOP", "R34-SPARK"},
		hidden: []string{"/usr/local/hadoop/etc/hadoop/core-site.xml", "/usr/local/hadoop/etc/hadoop/hive-site.xml", "/usr/local/spark/conf/spark-defaults.conf"},
	}.check(t, h)
}

// TestReplayReview34InBytecodeOfHiddenSource: a source with a
// credential written in it is not shown, but Python, run on the host,
// keeps its compiled form beside it (__pycache__/config.cpython-311.pyc),
// which holds the same literals and was shown unread as compiled code: a
// skill's scripts/config.py's API key, once the skill had run, and a
// tools checkout's lib/settings.py's database password (a bin/ on PATH
// widened to it), once its tool had, were readable inside, in the
// bytecode. The attack, from inside: grep the bytecode. Proof: neither
// is inside; a module holding none, and its bytecode, still are.
func TestReplayReview34InBytecodeOfHiddenSource(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "R34pyc"
	scripts := filepath.Join(h.Home, ".claude", "skills", "crm", "scripts")
	h.Write(filepath.Join(scripts, "..", "SKILL.md"), "---\nname: crm\ndescription: queries the CRM\n---\nRun scripts/query.py\n")
	h.Write(filepath.Join(scripts, "config.py"), "API_KEY = \""+secret+"SkillK9\"\n")
	h.Write(filepath.Join(scripts, "query.py"), "import config\nNAME = 'R34-QUERY'\n")
	ops := filepath.Join(h.Home, "code", "ops")
	h.Write(filepath.Join(ops, "bin", "ops"), "#!/bin/sh\necho R34-OPS\n")
	h.Write(filepath.Join(ops, "lib", "settings.py"), "DB_PASSWORD = \""+secret+"OpsPw\"\n")
	h.Write(filepath.Join(ops, "lib", "util.py"), "NAME = 'R34-UTIL'\n")
	if err := os.Chmod(filepath.Join(ops, "bin", "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The host runs them: Python writes each module's bytecode beside it.
	h.Run(scripts, nil, "python3", "-c", "import query")
	h.Run(filepath.Join(ops, "lib"), nil, "python3", "-c", "import settings, util")
	if host := h.Run(h.Home, nil, "sh", "-c", "cat "+scripts+"/__pycache__/config.*.pyc "+ops+"/lib/__pycache__/settings.*.pyc"); strings.Count(host, secret) != 2 {
		t.Fatalf("the host's Python kept no bytecode holding the literals, the test proves nothing:\n%q", host)
	}
	env := []string{"PATH=" + filepath.Join(ops, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rao '"+secret+"[A-Za-z0-9]*' ~/.claude/skills "+ops+"; grep -rhoa 'R34-[A-Z]*' ~/.claude/skills "+ops+"; ops; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("the bytecode of a source left out for its credential is readable inside")
	}
	for _, want := range []string{"R34-QUERY", "R34-UTIL"} {
		if strings.Count(out, want) < 2 {
			t.Errorf("inside, want %s, in the source and in its bytecode", want)
		}
	}
	if !strings.Contains(out, "R34-OPS") {
		t.Errorf("inside, want the tool on PATH to run")
	}
}

// TestReplayReview34InAgentSettingsQuotedCommand: of Codex's and Gemini
// CLI's settings, a known key's value (Gemini's hooks, Codex's notify)
// was judged for a credential as JSON, whose escapes put a backslash
// before every quote in a command and write its lines' ends as \n: a
// Gemini hook's curl -H "X-Api-Key: …", its PGPASSWORD="…" psql, a
// second line's MYSQL_PWD=… and Codex's notify with curl -u "ci:…",
// each caught as written, crossed in the settings' copies. The attack,
// from inside: read the copies. Proof: none is inside; a hook and a
// notify holding none still are.
func TestReplayReview34InAgentSettingsQuotedCommand(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{
  "general": {"vimMode": true},
  "hooks": {"AfterAgent": [{"matcher": "*", "hooks": [
    {"name": "status", "type": "command", "command": "curl -s -H \"X-Api-Key: R34gemKey9\" https://status.example.com/done"},
    {"name": "log", "type": "command", "command": "PGPASSWORD=\"R34gemPg\" psql -h db -c 'insert into runs default values'"},
    {"name": "sync", "type": "command", "command": "set -e\nMYSQL_PWD=R34gemMy mysql -h db -e 'select 1'"}
  ]}]},
  "ui": {"theme": "R34-harmless-theme"}
}
`)
	h.Write(filepath.Join(h.Home, ".codex", "config.toml"), "model = \"o3\"\nnotify = [\"sh\", \"-c\", \"curl -s -u \\\"ci:R34codexPw\\\" https://ci.example.com/notify\"]\n[tui]\nnotifications = true # R34-harmless-tui\n")
	fake := filepath.Join(h.Base, "fakebin")
	for _, a := range []string{"codex", "gemini"} {
		h.Write(filepath.Join(fake, a), "#!/bin/sh\ncat ~/.codex/config.toml ~/.gemini/settings.json 2>/dev/null; true\n")
		if err := os.Chmod(filepath.Join(fake, a), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.Chown()
	env := []string{"OPENAI_API_KEY=sk-proj-review34review34review34", "GEMINI_API_KEY=AIzaSyREVIEW34review34review34review34x", "PATH=" + fake + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	codex := h.Run(proj, env, "claudebox", "--agent", "codex")
	gemini := h.Run(proj, env, "claudebox", "--agent", "gemini")
	t.Logf("codex:\n%s\ngemini:\n%s", codex, gemini)
	for _, secret := range []string{"R34gemKey9", "R34gemPg", "R34gemMy", "R34codexPw"} {
		if strings.Contains(codex+gemini, secret) {
			t.Errorf("a credential in a quoted command of an agent's settings is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(gemini, "R34-harmless-theme") || !strings.Contains(codex, "o3") {
		t.Errorf("inside, want the settings that hold no credential")
	}
}

// TestReplayReview34InEscapedQuotesInJSON: a settings file was judged as
// written, and JSON writes each quote inside a string as \": a command
// in a plugin's hooks/hooks.json, which Claude Code runs, with curl -u
// "ci:…" or -H "X-Api-Key: …", and a skill's deploy.json with docker
// login --password "…", each caught in a hook's command of the settings,
// crossed. The attack, from inside: read them. Proof: none is inside and
// --dry-run names the files; a plugin's hooks.json holding none still
// is.
func TestReplayReview34InEscapedQuotesInJSON(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	notify := filepath.Join(claude, "plugins", "cache", "tools", "notify", "1.0.0")
	lint := filepath.Join(claude, "plugins", "cache", "tools", "lint", "1.0.0")
	h.Write(filepath.Join(claude, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
		"notify@tools": [{"scope": "user", "installPath": "`+notify+`", "version": "1.0.0"}],
		"lint@tools": [{"scope": "user", "installPath": "`+lint+`", "version": "1.0.0"}]}}`)
	h.Write(filepath.Join(notify, ".claude-plugin", "plugin.json"), `{"name": "notify", "version": "1.0.0"}`)
	h.Write(filepath.Join(notify, "hooks", "hooks.json"), `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "curl -s -u \"ci:R34plugPw9\" https://ci.example.com/job/notify/build"},
  {"type": "command", "command": "curl -s -H \"X-Api-Key: R34plugKey\" https://status.example.com/done"}
]}]}}
`)
	h.Write(filepath.Join(lint, ".claude-plugin", "plugin.json"), `{"name": "lint", "version": "1.0.0"}`)
	h.Write(filepath.Join(lint, "hooks", "hooks.json"), `{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
  {"type": "command", "command": "sh -c \"${CLAUDE_PLUGIN_ROOT}/lint.sh R34-harmless-lint\""}
]}]}}
`)
	h.Write(filepath.Join(claude, "skills", "ship", "SKILL.md"), "---\nname: ship\ndescription: ships\n---\nRun the steps in deploy.json\n")
	h.Write(filepath.Join(claude, "skills", "ship", "deploy.json"), `{"steps": ["docker login -u bot --password \"R34skillPw\" registry.corp.example", "docker push registry.corp.example/app"]}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; grep -rhoa 'R34[a-zA-Z0-9-]*' ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R34plugPw9", "R34plugKey", "R34skillPw"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential in a JSON string's quoted command is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R34-harmless-lint") {
		t.Errorf("inside, want the plugin's hooks.json that holds no credential")
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{filepath.Join(notify, "hooks", "hooks.json"), filepath.Join(claude, "skills", "ship", "deploy.json")} {
		if !strings.Contains(dry, strings.Replace(f, h.Home, "~", 1)) && !strings.Contains(dry, f) {
			t.Errorf("--dry-run does not name %s", f)
		}
	}
}

// TestReplayReview34InSignedTokenUnderAnyName: a signed JSON Web Token
// was a credential only under a name that says one (token, jwt, a
// bearer's): Supabase's service_role key, which reads and writes every
// table past its row rules, kept in a skill's config.json as
// service_role, in its script's createClient(url, '…'), and in a ~/bin
// script as SUPABASE_SERVICE_ROLE=…, crossed. The attack, from inside:
// read them. Proof: none is inside; the skill's instructions, a
// harmless script and a token with no signature (which grants nothing
// a server checks) still are.
func TestReplayReview34InSignedTokenUnderAnyName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJzZXJ2aWNlX3JvbGUifQ.R34sigQ2pLm4x9WZk3wQp9LmT2vXr7BQpwZk"
	const unsigned = "eyJhbGciOiJub25lIn0.eyJSMzQtaGFybWxlc3MiOnRydWV9."
	skill := filepath.Join(h.Home, ".claude", "skills", "db")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: db\ndescription: queries the database\n---\nRun scripts/query.mjs R34-SKILL\n")
	h.Write(filepath.Join(skill, "config.json"), `{"project": "ref34", "url": "https://ref34.supabase.co", "service_role": "`+jwt+`"}`+"\n")
	h.Write(filepath.Join(skill, "scripts", "query.mjs"), "import { createClient } from '@supabase/supabase-js'\nconst db = createClient('https://ref34.supabase.co', '"+jwt+"')\n")
	h.Write(filepath.Join(skill, "scripts", "fixture.json"), `{"claims": "`+unsigned+`"}`+"\n")
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "runs"), "#!/bin/sh\nSUPABASE_SERVICE_ROLE="+jwt+"\ncurl -s https://ref34.supabase.co/rest/v1/runs -H \"apikey: $SUPABASE_SERVICE_ROLE\"\n")
	h.Write(filepath.Join(bin, "hello"), "#!/bin/sh\necho R34-HELLO\n")
	for _, name := range []string{"runs", "hello"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rhoa 'R34sig[A-Za-z0-9]*' ~/.claude ~/bin; cat ~/.claude/skills/db/SKILL.md ~/.claude/skills/db/scripts/fixture.json; hello; true")
	t.Log(out)
	if strings.Contains(out, "R34sig") {
		t.Errorf("a signed token under a name that says nothing is readable inside")
	}
	for _, want := range []string{"R34-SKILL", unsigned, "R34-HELLO"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds no credential", want)
		}
	}
}

// TestReplayReview34InCodeInProse: Markdown (a command, a skill's
// instructions) was judged as prose, where a literal given to a name is
// written by chance and so taken for none: a slash command's
// !`PGPASSWORD=… pg_dump …`, which Claude Code runs as the command is
// typed, and a SKILL.md's bash block with export DEPLOY_PASSWORD=…
// crossed. The attack, from inside: read them. Proof: neither is inside
// and --dry-run names both; a command whose block gives a placeholder
// (your-api-key, $TOKEN) still is.
func TestReplayReview34InCodeInProse(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "commands", "backup.md"), "---\ndescription: back the database up\nallowed-tools: Bash\n---\n!`PGPASSWORD=R34cmdPg9x pg_dump -h prod.db.example.com app > /tmp/app.sql`\n\nSay how large the dump is.\n")
	h.Write(filepath.Join(claude, "commands", "setup.md"), "Set the key first:\n\n```bash\nexport API_KEY=your-api-key\nexport TOKEN=$MY_TOKEN\n```\nR34-harmless-command\n")
	h.Write(filepath.Join(claude, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: releases\n---\nTo release:\n\n```bash\nexport DEPLOY_PASSWORD=R34skillDp7q\n./scripts/release.sh\n```\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/commands/*.md ~/.claude/skills/release/SKILL.md; true")
	t.Log(out)
	if strings.Contains(out, "R34cmdPg9x") || strings.Contains(out, "R34skillDp7q") {
		t.Errorf("a credential in a command's or a skill's code is readable inside")
	}
	if !strings.Contains(out, "R34-harmless-command") {
		t.Errorf("inside, want the command whose code gives a placeholder")
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"commands/backup.md", "skills/release/SKILL.md"} {
		if !strings.Contains(dry, f) {
			t.Errorf("--dry-run does not name %s", f)
		}
	}
}

// TestReplayReview34InScriptWithoutShebang: of a PATH entry's programs
// (~/bin, /usr/local/bin) a script was judged only where it begins with
// #!; an executable of text without one, which a shell runs as a
// script all the same (execvp falls back to /bin/sh), was shown as a
// binary program is, unread: ~/bin/deploy with export
// DEPLOY_TOKEN=… crossed. The attack, from inside: read it. Proof: it is
// not inside and --dry-run names it; a shebang-less script holding none
// still runs inside.
func TestReplayReview34InScriptWithoutShebang(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "deploy"), "# deploy the app\nexport DEPLOY_TOKEN=R34noShebangTk9\ncurl -s -H \"Authorization: Bearer $DEPLOY_TOKEN\" https://deploy.example.com/run\n")
	h.Write(filepath.Join(bin, "greet"), "# say hello\necho R34-GREET\n")
	for _, name := range []string{"deploy", "greet"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	if host := h.Run(proj, env, "sh", "-c", "greet"); !strings.Contains(host, "R34-GREET") {
		t.Fatalf("a shell does not run a script without #! on the host, the test proves nothing:\n%s", host)
	}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/bin/deploy; greet; true")
	t.Log(out)
	if strings.Contains(out, "R34noShebang") {
		t.Errorf("a credential in a script without #! on PATH is readable inside")
	}
	if !strings.Contains(out, "R34-GREET") {
		t.Errorf("inside, want the script without #! that holds none to run")
	}
	if dry := h.Run(proj, env, "claudebox", "--dry-run", "--shell"); !strings.Contains(dry, "bin/deploy") {
		t.Errorf("--dry-run does not name ~/bin/deploy")
	}
}

// TestReplayReview34InVirtualenvActivateScripts: of a virtualenv on
// PATH (activated, ~/.virtualenvs/app) or among pyenv's versions, bin/
// was shown whole, as its package manager's programs, unjudged; and
// bin/ is where a virtualenv's variables are set: a tutorial's export
// SECRET_KEY=… appended to bin/activate, virtualenvwrapper's
// bin/postactivate with export AWS_SECRET_ACCESS_KEY=…, each crossed.
// The attack, from inside: read them. Proof: neither is inside; the
// virtualenv's python and a console script still run.
func TestReplayReview34InVirtualenvActivateScripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	venv := filepath.Join(h.Home, ".virtualenvs", "app")
	h.Run(h.Home, nil, "python3", "-m", "venv", "--without-pip", venv)
	activate := filepath.Join(venv, "bin", "activate")
	b, err := os.ReadFile(activate)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(activate, string(b)+"\nexport SECRET_KEY='R34djangoSk9'\n")
	h.Write(filepath.Join(venv, "bin", "postactivate"), "#!/bin/bash\n# This hook is sourced after this virtualenv is activated.\nexport AWS_SECRET_ACCESS_KEY=R34wrapperAws\n")
	h.Write(filepath.Join(venv, "bin", "hello"), "#!"+filepath.Join(venv, "bin", "python")+"\nprint('R34-HELLO')\n")
	if err := os.Chmod(filepath.Join(venv, "bin", "hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"VIRTUAL_ENV=" + venv, "PATH=" + filepath.Join(venv, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rhoa 'R34[a-zA-Z0-9]*' "+venv+"/bin; hello; python -c 'print(\"R34-PY\")'; true")
	t.Log(out)
	for _, secret := range []string{"R34djangoSk9", "R34wrapperAws"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential a virtualenv's activation sets is readable inside (%s)", secret)
		}
	}
	for _, want := range []string{"R34-HELLO", "R34-PY"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the virtualenv's programs to run (%s)", want)
		}
	}
}

// TestReplayReview34InKeyAmongCertificates: of /etc, the certificates'
// directories (ssl/certs, pki/tls/certs) were shown whole, as public,
// and a private key an administrator keeps beside its certificate there
// (nginx's site.key, HAProxy's site.pem, certificate and key in one
// file), every user's to read, crossed. The attack, from inside: read
// them. Proof: neither key is inside; the certificates still are.
func TestReplayReview34InKeyAmongCertificates(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "R34certsKeyBodyQ2pLm4x9WZk3wQp9LmT2vXr7BQpwZkLmTvXrBlQOYBGR34"
	key := "-----BEGIN PRIVATE KEY-----\n" + secret + "\n-----END PRIVATE KEY-----\n"
	cert := harness.SelfSignedPEM(t)
	stage := filepath.Join(h.Base, "etc")
	h.Write(filepath.Join(stage, "ssl", "certs", "site.key"), key)
	h.Write(filepath.Join(stage, "ssl", "certs", "haproxy-site.pem"), cert+key)
	h.Write(filepath.Join(stage, "ssl", "certs", "r34-site.crt"), cert)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	if host := run("cat", "/etc/ssl/certs/site.key"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged key on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -rl "+secret+" /etc/ssl; grep -q CERTIFICATE /etc/ssl/certs/r34-site.crt && echo R34-CERT-SHOWN; true")
	t.Log(out)
	if strings.Contains(out, "site.key") || strings.Contains(out, "haproxy-site.pem") {
		t.Errorf("a private key among /etc's certificates is readable inside")
	}
	if !strings.Contains(out, "R34-CERT-SHOWN") {
		t.Errorf("inside, want the certificate")
	}
}

// TestReplayReview34InAzureKeysAndKeystorePasswords: a credential's
// name was known by the words a name ends in (password, secret,
// token, api key, access key, private key): Azure's storage key, named
// AccountKey in every connection string (a ~/bin script's az storage
// --connection-string "…;AccountKey=…", an Azure Functions skill's
// local.settings.json under AzureWebJobsStorage) and a Java keystore's
// password given to keytool's or jarsigner's -storepass, -keypass
// crossed. The attack, from inside: read them. Proof: none is inside;
// a connection string with no key (the storage emulator's shortcut) and
// a -storepass read from a variable still are.
func TestReplayReview34InAzureKeysAndKeystorePasswords(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "upload"), "#!/bin/sh\naz storage blob upload --connection-string \"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=R34azKeyQ2pLm4x9WZk3wQp9LmT2vXr7BQ==;EndpointSuffix=core.windows.net\" -c builds -f \"$1\"\n")
	h.Write(filepath.Join(bin, "sign"), "#!/bin/sh\njarsigner -keystore ~/release.jks -storepass R34storePw -keypass R34keyPw \"$1\" release\n")
	h.Write(filepath.Join(bin, "sign-ci"), "#!/bin/sh\njarsigner -keystore release.jks -storepass:env KS_PASS \"$1\" release # R34-HARMLESS-SIGN\n")
	for _, name := range []string{"upload", "sign", "sign-ci"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	skill := filepath.Join(h.Home, ".claude", "skills", "functions")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: functions\ndescription: runs the functions locally\n---\nRun func start.\n")
	h.Write(filepath.Join(skill, "local.settings.json"), `{"IsEncrypted": false, "Values": {"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=R34fnKeyQ2pLm4x9WZk3wQp9LmT2vXr7BQ==;EndpointSuffix=core.windows.net", "FUNCTIONS_WORKER_RUNTIME": "python"}}`+"\n")
	h.Write(filepath.Join(skill, "emulator.settings.json"), `{"Values": {"AzureWebJobsStorage": "UseDevelopmentStorage=true", "R34-HARMLESS-EMULATOR": "1"}}`+"\n")
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/bin/* ~/.claude/skills/functions/*.json; true")
	t.Log(out)
	for _, secret := range []string{"R34azKey", "R34storePw", "R34keyPw", "R34fnKey"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential is readable inside (%s)", secret)
		}
	}
	for _, want := range []string{"R34-HARMLESS-SIGN", "R34-HARMLESS-EMULATOR"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
}
