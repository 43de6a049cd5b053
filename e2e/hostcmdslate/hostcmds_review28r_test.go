package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview28rUndoIgnoredStandIn: a launch stands an empty file in
// for each guarded file the project lacks (.envrc among them), and the
// undo snapshot leaves each out of git add by an exclude pathspec. git add
// exits 1 when such a pathspec names a file its ignore rules hide, and
// Rails' .gitignore template ignores /.env*, which .envrc matches, as do
// those that ignore .envrc itself: every session of such a project said
// "this session cannot be undone", and --undo had nothing to put back.
// Host-side proof: --undo puts back the tracked file the session changed.
func TestReplayReview28rUndoIgnoredStandIn(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/.env*\n!/.env*.erb\n")
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	out := h.InsideStderr(proj, "sleep 2; echo the session > README")
	if strings.Contains(out, "cannot be undone") {
		t.Errorf("the session's snapshot was not taken:\n%s", out)
	}
	undone, err := h.Bounded(proj, "--undo", "-y")
	if b, _ := os.ReadFile(filepath.Join(proj, "README")); string(b) != "hello\n" {
		t.Errorf("--undo did not put README back: it holds %q\n%v\n%s", b, err, undone)
	}
}
