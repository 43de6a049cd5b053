package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// renameat2 is the system call's number, for the racer's perl.
var renameat2 = map[string]int{"amd64": 316, "arm64": 276}

// TestReplayAuditMoveAsideSwappedParent: sessions of overlapping projects
// (~/code and ~/code/x) run at once. The session of x leaves
// x/s<i>/.claude/settings.json (findings of the exit audit) and symlinks
// x/l<i> to directories of the user's outside both projects; the session
// of ~/code, still running when x's last session ends, swaps each x/s<i>
// with x/l<i> (renameat2 RENAME_EXCHANGE) in a loop. x's audit walks
// without following a symlink, but moved each finding aside by its path,
// through whatever x/s<i> was by then. Host-side proof: the user's files
// the links point to are where they were, unchanged.
func TestReplayAuditMoveAsideSwappedParent(t *testing.T) {
	nr, ok := renameat2[runtime.GOARCH]
	if !ok {
		t.Skip("renameat2's number on " + runtime.GOARCH + " is not known here")
	}
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	x := filepath.Join(code, "x")
	h.GitRepo(x)
	const pairs = 64
	victim := func(i int) string { return filepath.Join(h.Home, "victims", fmt.Sprint(i), ".claude", "settings.json") }
	for i := range pairs {
		h.Write(victim(i), "the user's\n")
	}
	racer := h.Command(code, nil, "claudebox", "--shell", "-c", fmt.Sprintf(`
		exec perl -e '
			my @p = map { ["x/s$_", "x/l$_"] } 0..%d;
			open(my $f, ">", "RACING");
			until (-e "STOP") {
				for my $q (@p) { my ($a, $b) = @$q; syscall(%d, -100, $a, -100, $b, 2) }
			}'
	`, pairs-1, nr))
	var racerErr strings.Builder
	racer.Stderr = &racerErr
	if err := racer.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.WriteFile(filepath.Join(code, "STOP"), nil, 0o644)
		racer.Wait()
	}()
	for deadline := time.Now().Add(30 * time.Second); !paths.Exists(filepath.Join(code, "RACING")); {
		if time.Now().After(deadline) {
			t.Fatalf("the racing session did not start:\n%s", racerErr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stderr := h.InsideStderr(x, fmt.Sprintf(`
		for i in $(seq 0 %d); do mkdir -p s$i/.claude && echo '{"hooks":{}}' > s$i/.claude/settings.json; done
		for i in $(seq 0 %d); do ln -s %s/$i l$i; done
	`, pairs-1, pairs-1, filepath.Join(h.Home, "victims")))
	for i := range pairs {
		if b, err := os.ReadFile(victim(i)); err != nil || string(b) != "the user's\n" {
			t.Errorf("the exit audit of x moved the user's %s (%q, %v):\n%s", victim(i), b, err, stderr)
			break
		}
	}
}
