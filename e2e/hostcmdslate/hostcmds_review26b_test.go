package hostcmdslate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview26ProjectRootMode000: the session made the project's
// root mode 000 (555 alike stopped the moving aside). The exit audit could
// not open it ("did not examine" the project), so what the session left
// there stayed where the host obeys it (a .env that sets NODE_OPTIONS, a
// package in node_modules), and the stand-ins could not be removed: the
// user, giving the directory its permissions back, found empty .envrc,
// .mcp.json, .bashrc... of claudebox's. Host-side proof: after the exit
// the root is the user's to enter, the .env is no longer at its name and
// the exit names it, and no stand-in stays.
func TestReplayReview26ProjectRootMode000(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	t.Cleanup(func() { os.Chmod(proj, 0o755) })
	out, err := harness.ShellAfterSnapshot(t, h, proj, `set -e; echo 'NODE_OPTIONS=--require=./x.js' > .env; chmod 000 .`)
	if err != nil {
		t.Fatalf("the session: %v\n%s", err, out)
	}
	if fi, err := os.Stat(proj); err != nil || fi.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("the project's root stays closed to its owner (%v):\n%s", err, out)
	}
	os.Chmod(proj, 0o755)
	env := filepath.Join(proj, ".env")
	if _, err := os.Lstat(env); err == nil || !strings.Contains(out, env) {
		t.Errorf("the session's .env stays in the project, or the exit does not name it (%v):\n%s", err, out)
	}
	for _, n := range guard.WorkTreeNames() {
		if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
			t.Errorf("stand-in left: %s", n)
		}
	}
}
