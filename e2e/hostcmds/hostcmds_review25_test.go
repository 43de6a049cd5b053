package hostcmds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25MoveAsideReadOnlyAcrossDisks: the exit audit moves a
// finding aside into ~/.claudebox by rename; across filesystems the
// rename fails with EXDEV before the kernel looks at the directory's
// permissions, so the finding was copied and then could not be removed
// from the directory the session had made read-only (555): the host
// kept the file it would obey, with an error. Host-side proof: with
// ~/.claudebox on a filesystem of its own, the .envrc the session left
// in a read-only directory is gone from the project after the exit, and
// the exit names where it went.
func TestReplayReview25MoveAsideReadOnlyAcrossDisks(t *testing.T) {
	h, proj, _ := smallStateDisk(t)
	envrc := filepath.Join(proj, "sub", ".envrc")
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e; mkdir sub; echo 'touch "$HOME/PLANTED"' > sub/.envrc; chmod 555 sub`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if _, err := os.Lstat(envrc); err == nil {
		t.Errorf("the session's %s stays in the project:\n%s", envrc, out)
	}
	if !strings.Contains(out, envrc) {
		t.Errorf("the exit does not name %s:\n%s", envrc, out)
	}
}
