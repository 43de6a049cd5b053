package firstday

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayHostRebaseRefsNotTheSessions: the user rebases the branch
// checked out on the host, in another terminal, while a session runs
// and writes nothing. The end said "the session moved or made branches,
// tags or other refs" and listed .git/ORIG_HEAD and .git/AUTO_MERGE,
// which the host's git had left: where the branch was at the start, and
// the tree of the commit HEAD now names. A rebase that stops on a
// conflict left REBASE_HEAD, on the branch's old history, listed too.
// The end names neither: what they name is the user's own, or what git
// log shows.
func TestFirstDayHostRebaseRefsNotTheSessions(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "rebasing")
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
	commit("f.txt", "f\n")
	commit("README", "feat\n")
	git("checkout", "-q", "master")
	commit("b.txt", "b\n")
	git("checkout", "-q", "feat")

	session := func(onHost string) (hostSaid, end string) {
		_, out, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.1; done")
		said, _ := h.Command(proj, []string{"GIT_EDITOR=true"}, "sh", "-c", onHost).CombinedOutput()
		harness.TouchDone(t, proj)
		if err := <-exited; err != nil {
			t.Fatalf("session: %v\n%s", err, out.String())
		}
		os.Remove(filepath.Join(proj, "started"))
		os.Remove(filepath.Join(proj, "done"))
		return string(said), out.String()
	}

	said, end := session("git -c user.name=t -c user.email=t@e rebase master")
	if !strings.Contains(said, "Successfully rebased") {
		t.Fatalf("the host's rebase beside the session failed:\n%s", said)
	}
	if strings.Contains(end, "the session moved or made branches") {
		t.Errorf("the end names the refs the host's rebase left as the session's:\n%s", end)
	}

	commit("README", "feat again\n")
	git("checkout", "-q", "master")
	commit("README", "master\n")
	git("checkout", "-q", "feat")
	said, end = session("git -c user.name=t -c user.email=t@e rebase master")
	if !strings.Contains(said, "CONFLICT") {
		t.Fatalf("the host's second rebase did not stop on its conflict:\n%s", said)
	}
	for _, ref := range []string{"REBASE_HEAD", "ORIG_HEAD"} {
		if strings.Contains(end, filepath.Join(proj, ".git", ref)+"\n") {
			t.Errorf("the end names the %s the host's stopped rebase left as the session's:\n%s", ref, end)
		}
	}
}
