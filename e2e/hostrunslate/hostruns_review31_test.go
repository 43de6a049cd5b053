package hostrunslate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview31PythonStartupModules: with the project's src on the
// host's PYTHONPATH (as a direnv .envrc or a shell's profile sets it, so
// that the project imports), every python3 the host runs imports a
// sitecustomize.py there, and a usercustomize package, before its own
// code: a python3 -c anywhere, pip, a tool written in Python. Nothing
// guards a directory a variable names (it is the project's code). The
// session writes both, untracked. Proof: the host's python3, run outside
// the project with that PYTHONPATH, runs neither.
func TestReplayReview31PythonStartupModules(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "src", "app.py"), "print('app')\n")
	harness.CommitAll(h, proj, "src")
	env := []string{"PYTHONPATH=" + filepath.Join(proj, "src") + ":" + filepath.Join(proj, "lib")}
	line := `open("` + h.Marker() + `", "w").close()`
	var stderr strings.Builder
	c := h.Command(proj, env, "claudebox", "--shell", "-c", `set -e; mkdir -p lib/usercustomize; printf '%s\n' '`+line+`' > src/sitecustomize.py; printf '%s\n' '`+line+`' > lib/usercustomize/__init__.py; echo PLANTED >&2`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil || !strings.Contains(stderr.String(), "PLANTED") {
		t.Fatalf("the startup modules could not be planted: %v\n%s", err, stderr.String())
	}
	h.RunsNothingPlanted(stderr.String(), h.Home, env, "python3", "-c", "pass")
}
