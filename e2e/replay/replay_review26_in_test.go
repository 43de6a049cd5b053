package replay

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26CrashHandler: a process inside that crashes has the
// kernel hand its memory to the host's core_pattern: a core file, or a
// pipe to a program of the host's run as root (systemd-coredump keeps the
// image under /var/lib/systemd/coredump, apport under /var/crash), with
// what the sandbox chose in it, outside what the sandbox may write. The
// sandbox's processes could raise their core limit to the host's hard
// one (unlimited) and dump. The attack, from inside: raise the limit and
// crash in the project. Proof, on the host: no core is written, and the
// hard limit inside is one byte, which no pipe handler is run for and no
// core fits in.
func TestReplayReview26CrashHandler(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, `exec 2>&1
		grep 'core file' /proc/self/limits
		(ulimit -c unlimited; ulimit -c 4096; sh -c 'kill -SEGV $$')
		echo done`)
	if !regexp.MustCompile(`Max core file size +1 +1 +bytes`).MatchString(out) {
		t.Errorf("the core limit inside is not one byte, hard:\n%s", out)
	}
	entries, _ := os.ReadDir(proj)
	for _, e := range entries {
		if matched, _ := filepath.Match("core*", e.Name()); matched {
			t.Errorf("a crash inside wrote its core on the host: %s\n%s", e.Name(), out)
		}
	}
}
