package hostrunslate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32StdlibNamedModules: a module named as the standard
// library's (json.py) shadows it for every python3 with its directory on
// the path: PYTHONPATH's, or the directory of the script it runs. By the
// rule: one git ignores (gen/, on PYTHONPATH) is moved aside at the exit;
// one it does not (tools/, beside the script) stays, and the host's git
// status names it (or, where the exit cannot tell, it is moved aside,
// named). Host-side proof: the host's python3 with gen/ on its
// path runs nothing planted, and git status names tools/json.py.
func TestReplayReview32StdlibNamedModules(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/gen/\n")
	h.Write(filepath.Join(proj, "tools", "run.py"), "import json\n")
	harness.CommitAll(h, proj, "tools")
	line := `open("` + h.Marker() + `", "w").close()`
	out := harness.PlantUnseen(t, h, proj, "ignored json.py", `mkdir -p gen && printf '%s\n' '`+line+`' > gen/json.py`)
	h.RunsNothingPlanted(out, proj, []string{"PYTHONPATH=" + filepath.Join(proj, "gen")}, "python3", "-c", "import json")
	// Where the exit cannot tell whether git ignores what the session
	// made (under load), it moves such a module aside, naming it.
	said := h.InsideStderr(proj, `printf '%s\n' '`+line+`' > tools/json.py`)
	if status := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(status, "?? tools/json.py") && !strings.Contains(said, filepath.Join(proj, "tools", "json.py")) {
		t.Errorf("neither the host's git status nor the exit names the module the session left beside the script:\n%s\n%s", status, said)
	}
}

// TestReplayReview32IgnoredScriptRunBySh: a tracked Makefile runs
// sh build/gen, a file git ignores (build/), made by the session with no
// #! line, no extension and no execute bit: nothing said it was code, it
// stayed, and the host's make ran it. Host-side proof: the host's make
// gen runs nothing planted.
func TestReplayReview32IgnoredScriptRunBySh(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n")
	h.Write(filepath.Join(proj, "Makefile"), "gen:\n\tmkdir -p build && test -e build/gen || echo : > build/gen\n\tsh build/gen\n")
	harness.CommitAll(h, proj, "make")
	out := harness.PlantUnseen(t, h, proj, "ignored script", `mkdir -p build && echo 'touch `+h.Marker()+`' > build/gen`)
	h.RunsNothingPlanted(out, proj, nil, "make", "gen")
}
