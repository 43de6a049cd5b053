package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview31NewSourcesShownNotMoved: what the exit does with the
// session's new sources the host may run by hand or by a tool: an
// extensionless script (sh scripts/deploy, a Makefile's recipe), a test
// module an editor's test discovery imports (tests/test_new.py, which
// pytest --collect-only runs). They are the session's work, which moving
// aside would take from the user: the exit leaves them, and the host's
// git status names each, untracked, before anything runs them; where the
// exit could not tell whether git ignores what the session made, it
// moves a script aside, naming it. (A conftest.py, a sitecustomize.py,
// a task file, run unasked by a tool that merely starts there, is moved
// aside: TestReplayReview30PytestConftest,
// TestReplayReview31PythonStartupModules.)
func TestReplayReview31NewSourcesShownNotMoved(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	out := h.Plant(proj, "new sources", `mkdir -p scripts tests && printf 'echo deploy\n' > scripts/deploy && printf 'def test_new():\n    assert True\n' > tests/test_new.py`)
	status := h.Run(proj, nil, "git", "status", "--porcelain", "--untracked-files=all")
	for _, rel := range []string{"scripts/deploy", "tests/test_new.py"} {
		_, err := os.Stat(filepath.Join(proj, rel))
		switch {
		case err == nil && !strings.Contains(status, "?? "+rel):
			t.Errorf("the host's git status does not name %s, which the session left:\n%s\n%s", rel, status, out)
		case err != nil && !strings.Contains(out, filepath.Join(proj, rel)):
			t.Errorf("the exit took %s away without naming it: %v\n%s", rel, err, out)
		}
	}
}
