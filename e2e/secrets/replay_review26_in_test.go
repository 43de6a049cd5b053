package secrets

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26CrashHandler: a process inside that crashes has the
// kernel hand its memory to the host's core_pattern: a core file, or a
// pipe to a program of the host's run as root (systemd-coredump keeps the
// image under /var/lib/systemd/coredump, apport under /var/crash), with
// what the sandbox chose in it, outside what the sandbox may write. The
// sandbox's processes could raise their core limit to the host's hard
// one (unlimited) and dump. The attack, from inside: raise the limit and
// crash in the project. Proof, on the host: no core is written, and the
// hard limit inside is one byte, which no pipe handler is run for and no
// core fits in.
func TestReplayReview26CrashHandler(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, `exec 2>&1
		grep 'core file' /proc/self/limits
		(ulimit -c unlimited; ulimit -c 4096; sh -c 'kill -SEGV $$')
		echo done`)
	if !regexp.MustCompile(`Max core file size +1 +1 +bytes`).MatchString(out) {
		t.Errorf("the core limit inside is not one byte, hard:\n%s", out)
	}
	entries, _ := os.ReadDir(proj)
	for _, e := range entries {
		if matched, _ := filepath.Match("core*", e.Name()); matched {
			t.Errorf("a crash inside wrote its core on the host: %s\n%s", e.Name(), out)
		}
	}
}

// TestReplayReview26SkillCodeShellCommand: a skill's code that hands a
// shell a command as a string gives its password there as a shell line
// does (os.system("PGPASSWORD=… psql")), where the code judge looked only
// for literals given to names in code: the skill was shown whole. The
// attack, from inside: read it. Proof: it is not readable, --dry-run
// names it, and the skill's code that passes a variable is shown.
func TestReplayReview26SkillCodeShellCommand(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "hunter2R26"
	skill := filepath.Join(h.Home, ".claude", "skills", "db")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: db\ndescription: db\n---\nRun scripts/dump.py.\n")
	h.Write(filepath.Join(skill, "scripts", "dump.py"), "import os\nos.system(\"PGPASSWORD="+secret+" pg_dump -h db app > dump.sql\")\n")
	h.Write(filepath.Join(skill, "scripts", "dump.js"), "require('child_process').execSync(`MYSQL_PWD="+secret+" mysqldump app`)\n")
	h.Write(filepath.Join(skill, "scripts", "plain.py"), "# REVIEW26-CODE\nimport os\nos.system(\"PGPASSWORD=$PGPASSWORD pg_dump app\")\nconn = connect(host=h, password=pw, user=u)\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, "exec 2>&1; grep -r "+secret+" ~/.claude/skills; head -1 ~/.claude/skills/db/scripts/plain.py; true")
	if strings.Contains(out, secret) {
		t.Errorf("a password in a shell command a skill's code runs is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW26-CODE") {
		t.Errorf("inside, want the skill's code that passes a variable:\n%s", out)
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	for _, f := range []string{"dump.py", "dump.js"} {
		if !strings.Contains(dry, "~/.claude/skills/db/scripts/"+f+" (") {
			t.Errorf("--dry-run does not name ~/.claude/skills/db/scripts/%s as left out:\n%s", f, dry)
		}
	}
}

// TestReplayReview26UsrLocalToolchainTop: of /usr/local, a directory with
// a bin (an installed toolchain: go, an SDK) was shown whole, where every
// other directory there is looked through: a clone of a private tools
// repository (/usr/local/tools, its bin linked from /usr/local/bin) kept
// its remote's token in .git/config, and the deploy.env its scripts
// source beside them. The attack, from inside: read them. Proof: neither
// is readable and --dry-run names both; what the toolchains run with
// (their programs, Go's VERSION and src, an SDK's other directories) is
// still shown.
func TestReplayReview26UsrLocalToolchainTop(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	const secret = "Review26ToolchainSecret"
	// Made outside /usr and mounted over the host's in a mount namespace
	// of the test's own: other tests' sessions read the host's meanwhile.
	stage := filepath.Join(h.Base, "usr-local")
	h.Write(filepath.Join(stage, "tools", ".git", "config"), "[remote \"origin\"]\n\turl = https://ci:"+secret+"-git@git.corp/tools.git\n")
	h.Write(filepath.Join(stage, "tools", ".git", "HEAD"), "ref: refs/heads/main\n")
	h.Write(filepath.Join(stage, "tools", "deploy.env"), "DEPLOY_TOKEN="+secret+"-env\n")
	h.Write(filepath.Join(stage, "tools", "bin", "deploy"), "#!/bin/sh\n. /usr/local/tools/deploy.env\necho REVIEW26-DEPLOY\n")
	h.Write(filepath.Join(stage, "tools", "platform", "lib.py"), "NAME = 'REVIEW26-PLATFORM'\n")
	h.Write(filepath.Join(stage, "go", "bin", "go"), "\x7fELF\x02\x01\x01\x00REVIEW26-GO\x00")
	h.Write(filepath.Join(stage, "go", "VERSION"), "go1.99 REVIEW26-VERSION\n")
	h.Write(filepath.Join(stage, "go", "src", "fmt", "print.go"), "package fmt // REVIEW26-SRC\n")
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.Chmod(filepath.Join(stage, "tools", "bin", "deploy"), 0o755)
	os.Chmod(filepath.Join(stage, "go", "bin", "go"), 0o755)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := func(name string, args ...string) string {
		t.Helper()
		return h.RunOver(stage, "/usr/local", proj, name, args...)
	}
	if host := run("cat", "/usr/local/tools/deploy.env"); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged file on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; cat /usr/local/tools/.git/config; grep -ra "+secret+" /usr/local; grep -rah REVIEW26 /usr/local | tr -d '\\000'; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("what lies at an installed toolchain's top below /usr/local with a secret is readable inside:\n%s", out)
	}
	for _, want := range []string{"REVIEW26-DEPLOY", "REVIEW26-PLATFORM", "REVIEW26-GO", "REVIEW26-VERSION", "REVIEW26-SRC"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want what an installed toolchain runs with (%s):\n%s", want, out)
		}
	}
	dry := run("claudebox", "--dry-run", "--shell")
	for _, p := range []string{"/usr/local/tools/.git", "/usr/local/tools/deploy.env"} {
		if !strings.Contains(dry, p) {
			t.Errorf("--dry-run does not name %s:\n%s", p, dry)
		}
	}
}
