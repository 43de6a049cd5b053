package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30FolderTrackedRewriteTimeKept: as
// TestReplayReview29TrackedRewriteTimeKept, in a folder of repositories
// (claudebox run where no repository is, above several): the user's git
// compares size and modification time only (core.trustctime off), the
// session rewrites a repository's tracked script with as many bytes and
// puts its old time back. Host-side proof: the host's git status in
// that repository shows the change, and the exit names the script.
func TestReplayReview30FolderTrackedRewriteTimeKept(t *testing.T) {
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[core]\n\ttrustctime = false\n")
	work := filepath.Join(h.Home, "work")
	app := filepath.Join(work, "app")
	plant := committedScript(h, app)
	out := h.InsideStderr(work, `sleep 1.1; t=$(stat -c %y app/build.sh); printf '#!/bin/sh\n`+plant+`\n' > app/build.sh; touch -d "$t" app/build.sh`)
	status := h.Run(app, nil, "git", "status", "--porcelain")
	if b, _ := os.ReadFile(filepath.Join(app, "build.sh")); strings.Contains(string(b), plant) && !strings.Contains(status, "build.sh") {
		t.Errorf("the session's rewrite of app/build.sh is in place, and git status shows nothing (%q):\n%s", status, out)
	}
	if !strings.Contains(out, "build.sh") {
		t.Errorf("the exit does not name app/build.sh:\n%s", out)
	}
}
