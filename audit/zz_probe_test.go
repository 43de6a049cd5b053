package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	root := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	git := func(args ...string) string {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "init")
	git("worktree", "add", "-q", "wt", "-b", "side")
	git("-c", "protocol.file.allow=always", "submodule", "add", "-q", "./", "sub")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	head := git("rev-parse", "HEAD")
	other := strings.Repeat("1", 40)
	for _, p := range []string{".git/worktrees/wt/logs/HEAD", ".git/modules/sub/logs/HEAD"} {
		f, err := os.OpenFile(filepath.Join(root, p), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		f.WriteString(head + " " + other + " t <t@example.com> 1700000000 +0000\treset: moving to x\n" + other + " " + head + " t <t@example.com> 1700000000 +0000\treset: moving to x\n")
		f.Close()
	}
	for _, p := range []string{".git/worktrees/wt/config.worktree", ".git/worktrees/wt/ORIG_HEAD", ".git/worktrees/wt/info/attributes", ".git/modules/sub/hooks/pre-commit", ".git/modules/sub/config", ".git/modules/sub/refs/heads/evil", ".git/info/sparse-checkout", ".git/info/exclude", ".git/objects/info/alternates", ".git/config.worktree", ".git/worktrees/wt/MERGE_HEAD", ".git/modules/sub/ORIG_HEAD", ".git/modules/sub/info/attributes"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	t.Logf("found %q\nbranches %q\nnot %q", r.Found, r.Branches, r.NotExamined)
}
