package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestFirstDay41StoppedRebaseNoAutoMerge: the agent rebases the branch
// checked out and the rebase stops on a conflict. The end moves the
// rebase's state aside, saying what it was and the way back, and also
// listed .git/AUTO_MERGE among "branches, tags or other refs moved or
// made", with "read git log -p of each", which means nothing of a tree:
// the tree with conflict markers git wrote into the work tree at the
// stop, which git rebase --abort or a switch of branches removes. It goes
// aside with the rebase's state, and is put back with it.
func TestFirstDay41StoppedRebaseNoAutoMerge(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "rebase41")
	h.GitRepo(proj)
	git := func(args ...string) string {
		return h.Run(proj, nil, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	}
	commit := func(file, content string) {
		h.Write(filepath.Join(proj, file), content)
		git("add", file)
		git("commit", "-qm", file)
	}
	git("checkout", "-qb", "feat")
	commit("README", "feat\n")
	git("checkout", "-q", "master")
	commit("README", "master\n")
	git("checkout", "-q", "feat")
	out := h.InsideStderr(proj, "exec >&2; git -c user.name=t -c user.email=t@e rebase master; test -f .git/AUTO_MERGE && echo AUTO_MERGE-written")
	if !strings.Contains(out, "CONFLICT") || !strings.Contains(out, "AUTO_MERGE-written") {
		t.Fatalf("the rebase inside did not stop on its conflict with AUTO_MERGE written:\n%s", out)
	}
	if !strings.Contains(out, "claudebox: the rebase of feat begun while the session ran (inside, or on the host) stopped part way") {
		t.Errorf("the end does not say the rebase stopped:\n%s", out)
	}
	if strings.Contains(out, harness.RefsNamed) {
		t.Errorf("the end names the stopped rebase's AUTO_MERGE among refs moved or made:\n%s", out)
	}
	if paths.Exists(filepath.Join(proj, ".git", "AUTO_MERGE")) {
		t.Errorf("the stopped rebase's AUTO_MERGE was left in place:\n%s", out)
	}
	// The way back the end gives puts both back, and git then ends the
	// rebase as it would have.
	var putBack []string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "to put it back: "); ok {
			putBack = append(putBack, c)
		}
	}
	if len(putBack) != 2 {
		t.Fatalf("the end gives %d ways back, want the rebase's state and AUTO_MERGE:\n%s", len(putBack), out)
	}
	h.Run(proj, nil, "sh", "-c", strings.Join(putBack, " && "))
	if diff := git("diff", "--name-only", "AUTO_MERGE"); diff != "" {
		t.Errorf("git diff AUTO_MERGE after putting it back: %q", diff)
	}
	git("rebase", "--abort")
	if head, feat := git("rev-parse", "HEAD"), git("rev-parse", "feat"); head != feat || paths.Exists(filepath.Join(proj, ".git", "AUTO_MERGE")) {
		t.Errorf("git rebase --abort after putting both back left HEAD at %s (feat %s) or AUTO_MERGE", head, feat)
	}
}
