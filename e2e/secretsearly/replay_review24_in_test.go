package secretsearly

import (
	"os"
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

// TestReplayReview24UsrLocal: of the system directories, /usr is shown
// whole but for /usr/local/etc, and /usr/local is where an administrator
// puts what they install by hand: a deploy script with a token written
// in it on the PATH (/usr/local/bin/deploy.sh), a token.txt beside it, a
// deploy.env at /usr/local's top, none of which a PATH entry of the
// home's would have shown. The attack, from inside: read them. Proof:
// none is readable inside and --dry-run names each; a program without a
// credential still runs, and an installed toolchain's directory is still
// shown.
func TestReplayReview24UsrLocal(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "Review24UsrLocalSecret"
	// Made outside /usr and mounted over the host's in a mount namespace
	// of the test's own: other tests' sessions read the host's meanwhile.
	stage := filepath.Join(h.Base, "usr-local")
	program := func(rel, content string) {
		h.Write(filepath.Join(stage, rel), content)
		os.Chmod(filepath.Join(stage, rel), 0o755)
	}
	program("bin/deploy.sh", "#!/bin/sh\nexport GITHUB_TOKEN=ghp_"+secret+"0123456789\ngh release create \"$@\"\n")
	program("bin/build", "#!/bin/sh\necho REVIEW24-BUILD-RUNS\n")
	h.Write(filepath.Join(stage, "bin", "token.txt"), secret+"-tokentxt\n")
	h.Write(filepath.Join(stage, "deploy.env"), "DEPLOY_PASSWORD="+secret+"-env\n")
	h.Write(filepath.Join(stage, ".vault-token"), secret+"-vault\n")
	program("tool/bin/tool", "#!/bin/sh\necho REVIEW24-TOOL-RUNS\n")
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
	if host := run("cat", "/usr/local/bin/deploy.sh"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; grep -r "+secret+" /usr/local; /usr/local/bin/build; /usr/local/tool/bin/tool; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("what an administrator put in /usr/local with a secret is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW24-BUILD-RUNS", "REVIEW24-TOOL-RUNS"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want /usr/local's programs to run (%s):\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, p := range []string{"/usr/local/bin/deploy.sh", "/usr/local/bin/token.txt", "/usr/local/deploy.env", "/usr/local/.vault-token"} {
		if !strings.Contains(dry, p) {
			t.Errorf("--dry-run does not name %s:\n%s", p, dry)
		}
	}
}

// TestReplayReview24SkillLargeFiles: a skill's script or source over
// 256 KiB was taken for a bundle no one wrote a token into and shown
// unjudged, and so were settings and prose over it; but a bundler writes
// into its bundle the variables it was built with (a token among them),
// and anything fits in a large data file. The attack, from inside: read
// a plugin's bundled server with a GitHub token built in and a 300 KiB
// data.json with a webhook's URL. Proof: neither is readable inside and
// --dry-run names both; a bundle of the same size without one is still
// shown.
func TestReplayReview24SkillLargeFiles(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "Review24LargeSecret0123"
	skill := filepath.Join(h.Home, ".claude", "skills", "server")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: server\ndescription: server\n---\nRun dist/server.js.\n")
	bundle := strings.Repeat(`function a(e,t){return e.valHooks&&t.propHooks?"mail@example.com":e.bearer_of(t)}`, 3500)
	h.Write(filepath.Join(skill, "dist", "server.js"), bundle+`var GH="ghp_`+secret+`";`+bundle)
	h.Write(filepath.Join(skill, "dist", "plain.js"), "/*REVIEW24-BUNDLE*/"+bundle+bundle)
	h.Write(filepath.Join(skill, "data.json"), `{"rows":[`+strings.Repeat(`{"stage":"build","run":"make all"},`, 9000)+`{"notify":"https://hooks.slack.com/services/T0/B0/`+secret+`"}]}`)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -rlo "+secret+" ~/.claude; head -c 19 ~/.claude/skills/server/dist/plain.js; echo; true")
	t.Log(out)
	if strings.Contains(out, "server.js") || strings.Contains(out, "data.json") {
		t.Errorf("a credential in a skill's large bundle or data file is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW24-BUNDLE") {
		t.Errorf("inside, want the skill's large bundle that holds no credential:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"dist/server.js", "data.json"} {
		if !strings.Contains(dry, "~/.claude/skills/server/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/skills/server/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview24ShortPasswordsAssigned: a command or a script was
// taken to hold a credential given to a name only where it was 16 token
// characters or more, and a password is often shorter: a hook's
// `PGPASSWORD=hunter2 psql …`, a git alias's `!MYSQL_PWD…`, a script of
// ~/bin exporting DEPLOY_PASSWORD crossed. The attack, from inside: read
// them. Proof: none is readable inside; a hook, an alias and a program
// that give a variable's value still are.
func TestReplayReview24ShortPasswordsAssigned(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R24"
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"PGPASSWORD=`+secret+` psql -h db -c 'insert into runs values (1)'"},
		{"type":"command","command":"echo REVIEW24-HOOK; PGPASSWORD=$DB_PASSWORD psql -h db"}]}]}}`)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[alias]\n\tdbdump = \"!PGPASSWORD="+secret+" pg_dump -h db app\"\n\tlg = log --oneline # REVIEW24-ALIAS\n")
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "deploy"), "#!/bin/sh\nexport DEPLOY_PASSWORD="+secret+"\nexec ./release\n")
	h.Write(filepath.Join(bin, "build"), "#!/bin/sh\necho REVIEW24-BUILD; DEPLOY_PASSWORD=\"$1\" make\n")
	os.Chmod(filepath.Join(bin, "deploy"), 0o755)
	os.Chmod(filepath.Join(bin, "build"), 0o755)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := "PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, "exec 2>&1; grep -r "+secret+" ~/.claude/settings.json ~/.gitconfig ~/bin; cat ~/.claude/settings.json; git config --get alias.lg; build; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a short password assigned in a hook, an alias or a script is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW24-HOOK", "log --oneline", "REVIEW24-BUILD"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what gives a variable's value (%s):\n%s", want, out)
		}
	}
}

// TestReplayReview24LargePathScript: of a PATH entry's programs, only a
// file of at most 256 KiB was read to look for a credential, the rest
// taken for a binary; but a script may be larger (an installer with its
// payload after it, a bundled tool), and one with a token written in it
// was shown. The attack, from inside: read it. Proof: it is not readable
// inside; a large binary still is.
func TestReplayReview24LargePathScript(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "Review24LargeScript0123"
	bin := filepath.Join(h.Home, "bin")
	payload := strings.Repeat("# payload line, as an installer carries it after its script\n", 5000)
	h.Write(filepath.Join(bin, "install"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_"+secret+"\nexit 0\n"+payload)
	h.Write(filepath.Join(bin, "tool"), "\x7fELF REVIEW24-BINARY "+secret[:8]+strings.Repeat("\x00", 300<<10))
	os.Chmod(filepath.Join(bin, "install"), 0o755)
	os.Chmod(filepath.Join(bin, "tool"), 0o755)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	path := "PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, "exec 2>&1; grep -r "+secret+" ~/bin; head -c 21 ~/bin/tool | tail -c 16; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a large script of a PATH entry with a token written in it is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW24-BINARY") {
		t.Errorf("inside, want the PATH entry's large binary:\n%s", out)
	}
}
