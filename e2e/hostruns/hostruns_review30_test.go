package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30MiseUnspelledSourceTrustTaken: the project's mise.toml
// sources the script a variable names, whole (_.source =
// "{{env.ENV_FILE}}", ENV_FILE the tracked config/dev.sh), which mise
// runs at every prompt and mise exec while the user trusts the
// configuration: in paranoid mode (MISE_PARANOID=1, where mise asks at
// all: mise 2026.9 trusts it unasked otherwise) a trust of its path and
// content, which a change of what it sources does not take back. The
// exit audit cannot spell the file, which may be any below the
// configuration, tracked or not; the session appends to config/dev.sh.
// Host-side proof: the host's mise exec runs nothing the session wrote
// (mise trusts the configuration no more, and refuses it).
func TestReplayReview30MiseUnspelledSourceTrustTaken(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "mise.toml"), "[env]\n_.source = \"{{env.ENV_FILE}}\"\n")
	h.Write(filepath.Join(proj, "config", "dev.sh"), "export APP=dev\n")
	harness.CommitAll(h, proj, "mise")
	vars := []string{"MISE_PARANOID=1", "ENV_FILE=" + filepath.Join(proj, "config", "dev.sh")}
	h.Run(proj, vars, "mise", "trust", "--quiet")
	if out, err := h.Command(proj, vars, "mise", "exec", "--", "true").CombinedOutput(); err != nil {
		t.Fatalf("the trusted configuration does not run before the session: %v\n%s", err, out)
	}
	out := h.Plant(proj, "the script", `printf 'touch `+h.Marker()+`\n' >> config/dev.sh`)
	if !strings.Contains(out, "mise's trust") {
		t.Errorf("the session's end does not say mise's trust is taken back:\n%s", out)
	}
	h.RunsNothingPlanted(out, proj, vars, "mise", "exec", "--", "true")
	if _, err := os.Stat(filepath.Join(proj, "mise.toml")); err != nil {
		t.Errorf("the configuration is gone: %v", err)
	}
}

// TestReplayReview30PytestConftest: pytest imports every conftest.py
// where it collects tests, and an editor's test discovery (VS Code's
// Python extension, where enabled) runs its collection as the folder
// opens, before git status is read. The exit audit judged a .py file the
// session made only where git ignores it: an untracked conftest.py, one
// beside the tests and one where git ignores it, stayed. Host-side
// proof: the host's pytest --collect-only runs nothing the session
// wrote.
func TestReplayReview30PytestConftest(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	if err := h.Command(h.Home, nil, "python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("pytest is not installed: apt-get install python3-pytest")
	}
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/local/\n")
	h.Write(filepath.Join(proj, "tests", "test_app.py"), "def test_app():\n    assert True\n")
	h.Write(filepath.Join(proj, "local", "test_mine.py"), "def test_mine():\n    assert True\n")
	harness.CommitAll(h, proj, "tests")
	line := `open("` + h.Marker() + `", "w").close()`
	out := h.Plant(proj, "the conftest files", `printf '%s\n' '`+line+`' > tests/conftest.py && printf '%s\n' '`+line+`' > local/conftest.py`)
	h.RunsNothingPlanted(out, proj, nil, "python3", "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", "tests", "local")
}
