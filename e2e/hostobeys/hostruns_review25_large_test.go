package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25UnsearchableDirectory: git ignores build/, whose
// run.sh the host runs; the session appends to it and takes build's
// search permission away (chmod 644: its names still read, no status of
// any). The exit's walk of every file read build's names, failed to read
// each one's status and went on as if none had changed. The host's
// `chmod +x build && build/run.sh` then ran the session's line. Host-side
// proof: after the exit, run.sh is what it was, or moved aside (alone or
// with build) and named.
func TestReplayReview25UnsearchableDirectory(t *testing.T) {
	h := harness.NewHost(t)
	const script = "#!/bin/sh\necho ok\n"
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, ".gitignore"), "build/\n")
	h.Write(filepath.Join(proj, "build", "run.sh"), script)
	harness.Must(t, os.Chmod(filepath.Join(proj, "build", "run.sh"), 0o755))
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	h.Chown()
	out, err := h.Command(proj, nil, "claudebox", "--shell", "-c", `set -e; echo 'touch "$HOME/PLANTED"' >> build/run.sh; chmod 644 build`).CombinedOutput()
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	build, run := filepath.Join(proj, "build"), filepath.Join(proj, "build", "run.sh")
	if _, err := os.Lstat(build); err != nil {
		if !strings.Contains(string(out), build) {
			t.Errorf("build was moved aside, but the exit does not name it:\n%s", out)
		}
		return
	}
	harness.Must(t, os.Chmod(build, 0o755))
	if b, err := os.ReadFile(run); err == nil && string(b) != script && !strings.Contains(string(out), run) {
		t.Errorf("build/run.sh, which the host runs, holds %q after the exit, which neither moved it aside nor named it:\n%s", b, out)
	}
}
