package replay

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
