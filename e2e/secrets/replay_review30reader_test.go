package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30ReaderReflogGrownPastRead: a reflog is shown as a
// copy without a URL's credential only where the launch read it, and one
// larger than it reads (16 MiB) was shown as it is. The attack: a session
// grows the project's logs/HEAD past that (truncate, a sparse file, which
// git on both sides goes on appending to); the user then runs git pull
// https://user:TOKEN@… on the host, which appends its command, token and
// all; the next session reads it. Proof: the token is nowhere inside the
// next session, which sees the reflog empty, the launch naming it; git
// inside still commits.
func TestReplayReview30ReaderReflogGrownPastRead(t *testing.T) {
	h := harness.NewHost(t)
	up := filepath.Join(h.Home, "src", "up")
	h.GitRepo(up)
	proj := filepath.Join(h.Home, "work", "app")
	h.Run(h.Home, nil, "git", "clone", "-q", up, proj)
	h.Inside(proj, nil, "truncate -s 17M .git/logs/HEAD")
	h.Write(filepath.Join(up, "NEW"), "new\n")
	h.Run(up, nil, "git", "add", "NEW")
	h.Run(up, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "new")
	branch := strings.TrimSpace(h.Run(up, nil, "git", "branch", "--show-current"))
	const token = "R30readerTok7kP4"
	h.Run(proj, nil, "git", "pull", "-q", "file://bob:"+token+"@"+up, branch)
	if !strings.Contains(harness.Snapshot(filepath.Join(proj, ".git", "logs", "HEAD")), token) {
		t.Fatalf("the host's git did not record the pull's URL in the grown reflog; the attack needs it")
	}
	if notice := h.InsideStderr(proj, "true"); !strings.Contains(notice, ".git/logs/HEAD") || strings.Contains(notice, token) {
		t.Errorf("the launch should name the reflog hidden, never the token:\n%s", notice)
	}
	out := h.Inside(proj, nil, "exec 2>&1; grep -ac "+token+" .git/logs/HEAD; git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo COMMITTED; true")
	t.Log(out)
	if !strings.HasPrefix(out, "0\n") {
		t.Errorf("the token a host-side git pull appended to a reflog the sandbox grew is readable inside")
	}
	if !strings.Contains(out, "COMMITTED") {
		t.Errorf("inside, want git to commit")
	}
}
