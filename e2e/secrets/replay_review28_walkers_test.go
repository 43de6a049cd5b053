package secrets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview28ManagedGitDirTop: of the managed policy's .claude,
// the private copy left out a git directory among a skill's entries
// (its objects hold every file the history ever had, a token committed
// once and removed since), as ~/.claude's copies leave one out, but
// took one of the known directories (skills, rules) whole where it was
// itself a git directory: a bare repository deployed as skills was
// copied, its objects with it. The attack, from inside: read a token
// the history holds. Proof: it is not readable, the directory is not
// shown and --dry-run names it; the other directories still are.
func TestReplayReview28ManagedGitDirTop(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /etc needs root")
	}
	const secret = "REVIEW28MANAGEDBARESECRET"
	stage := filepath.Join(h.Base, "etc")
	dot := filepath.Join(stage, "claude-code", ".claude")
	skills := filepath.Join(dot, "skills")
	git := func(stdin string, args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"--git-dir=" + skills}, args...)...)
		c.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=" + h.Base, "PATH=/usr/bin:/bin"}
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(skills, 0o755); err != nil {
		t.Fatal(err)
	}
	git("", "init", "--bare", "-q")
	object := git("DEPLOY_TOKEN="+secret+"\n", "hash-object", "-w", "--stdin")
	h.Write(filepath.Join(dot, "rules", "style.md"), "REVIEW28-MANAGED-RULE\n")
	h.Chown()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	run := harness.OverEtc(t, h, stage, proj)
	read := "git -c safe.directory='*' --git-dir=/etc/claude-code/.claude/skills cat-file -p " + object
	if host := run("sh", "-c", read); !strings.Contains(host, secret) {
		t.Fatalf("the user cannot read the staged history on the host, the test proves nothing:\n%s", host)
	}
	out := run("claudebox", "--shell", "-c", "exec 2>&1; "+read+"; ls -a /etc/claude-code/.claude/skills; cat /etc/claude-code/.claude/rules/style.md; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("the history of a managed .claude's git directory is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "REVIEW28-MANAGED-RULE") {
		t.Errorf("inside, want the managed .claude's rules:\n%s", out)
	}
	if dry := run("claudebox", "--dry-run", "--shell"); !strings.Contains(dry, "claude-code/.claude/skills") {
		t.Errorf("--dry-run does not name the git directory as left out:\n%s", dry)
	}
}
