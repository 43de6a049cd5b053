package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29TrackedRewriteTimeKept: the host's git status and git
// diff are how a user reviews what the session did to tracked files. With
// the user's core.trustctime off (or core.checkStat minimal), git compares
// a file's size and modification time only: a tracked script rewritten by
// the session with the same size and its old modification time put back
// (touch -r) looks unchanged, and the host runs it.
func TestReplayReview29TrackedRewriteTimeKept(t *testing.T) {
	for _, config := range []string{"[core]\n\ttrustctime = false\n", "[core]\n\tcheckStat = minimal\n"} {
		h := harness.NewHost(t)
		h.Write(filepath.Join(h.Home, ".gitconfig"), config)
		proj := filepath.Join(h.Home, "proj")
		plant := committedScript(h, proj)
		out, err := harness.ShellAfterSnapshot(t, h, proj, `t=$(stat -c %y build.sh); printf '#!/bin/sh\n`+plant+`\n' > build.sh; touch -d "$t" build.sh`)
		if err != nil {
			t.Fatalf("the session: %v\n%s", err, out)
		}
		status := h.Run(proj, nil, "git", "status", "--porcelain")
		if b, _ := os.ReadFile(filepath.Join(proj, "build.sh")); strings.Contains(string(b), plant) && !strings.Contains(status, "build.sh") {
			t.Errorf("%q: the session's rewrite of build.sh is in place, and git status shows nothing (%q):\n%s", config, status, out)
		}
		if !strings.Contains(out, "build.sh") {
			t.Errorf("%q: the exit does not name build.sh:\n%s", config, out)
		}
	}
}

// committedScript commits, in a new repository at dir, an executable
// build.sh as many bytes long as the line a session puts in its place to
// run the host's marker, which it returns.
func committedScript(h *harness.Host, dir string) string {
	plant := "touch " + h.Marker()
	h.Write(filepath.Join(dir, "build.sh"), "#!/bin/sh\necho "+strings.Repeat("b", len(plant)-5)+"\n")
	harness.Must(h.T, os.Chmod(filepath.Join(dir, "build.sh"), 0o755))
	h.Chown()
	h.GitRepo(dir)
	h.Run(dir, nil, "git", "add", "build.sh")
	h.Run(dir, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "build")
	return plant
}
