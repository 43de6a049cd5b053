package hostobeys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview24LateIgnoredListRemoved: the sandbox's start no
// longer waits for a large checkout's list of ignored files (it waited
// up to 5 s, a 1,000,000-file tree's every session), which goes on
// beside the session. A session that removes an ignored file at once,
// before git lists its directory, left a list that lacked it: taken for
// the start's, the record of its changes would name nothing removed
// and say nothing missing. The list is the start's only where no
// directory, .gitignore or info/exclude changed since the sandbox was
// let go, else none, which the record says. Here git's list is slowed by
// 5,000 ignore rules over 10,000 untracked files.
func TestReplayReview24LateIgnoredListRemoved(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	var rules strings.Builder
	rules.WriteString("build/\n")
	for i := range 5000 {
		fmt.Fprintf(&rules, "*.x%04d\n", i)
	}
	h.Write(filepath.Join(proj, ".gitignore"), rules.String())
	h.Write(filepath.Join(proj, "zz", "build", "old.o"), "object\n")
	for d := range 500 {
		dir := filepath.Join(proj, fmt.Sprintf("d%03d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644)
		}
	}
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	_, out, exited := harness.StartSession(t, h, proj, `rm zz/build/old.o; touch started; while ! test -e done; do sleep 0.05; done; rm -f started done`)
	h.WaitSnapshot()
	harness.TouchDone(t, proj)
	if err := <-exited; err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	changes := h.Run(proj, nil, "claudebox", "--changes")
	if !strings.Contains(changes, "removed  zz/build/old.o") && !strings.Contains(changes, "note: the start listed no ignored files") {
		t.Errorf("the record names neither the removed ignored file nor a list missing:\n%s", changes)
	}
}
