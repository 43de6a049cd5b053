package hostruns

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview24bCondaPrefix: a conda environment in the project (a
// directory beside its conda-meta, no pyvenv.cfg) is the prefix of the
// host's python there as a virtualenv is: conda activate sources its
// etc/conda/activate.d, Jupyter starts a kernel by the argv of its
// share/jupyter/kernels/*/kernel.json. The exit judged an ignored file
// there by its mode, #! and extension, which .json is none of: the
// session writes a kernel. Host-side proof: git status says nothing, and
// the exit names the kernel the session wrote.
func TestReplayReview24bCondaPrefix(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/env/\n")
	h.Write(filepath.Join(proj, "env", "conda-meta", "history"), "==> 2026-11-29 <==\n")
	harness.CommitAll(h, proj, "ignore")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "Jupyter kernel", `
		mkdir -p env/share/jupyter/kernels/evil
		printf '{"argv": ["sh", "-c", "touch `+marker+`"], "display_name": "Python 3"}\n' > env/share/jupyter/kernels/evil/kernel.json`)
	if kernel := filepath.Join(proj, "env", "share", "jupyter", "kernels", "evil", "kernel.json"); !strings.Contains(out, kernel) {
		t.Errorf("the exit did not name the kernel the session wrote in the conda environment:\n%s", out)
	}
}

// TestReplayReview24bBazelrcImport: Bazel reads the workspace's .bazelrc
// at every command and the files it imports (try-import
// %workspace%/.bazelrc.user), which git ignores, by any name, as its own:
// build --run_under runs what it says. The exit judged .bazelrc and
// user.bazelrc by name only: the session writes the ignored file a
// tracked .bazelrc imports. Host-side proof: git status says nothing, and
// the exit names the file the session wrote.
func TestReplayReview24bBazelrcImport(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/.bazelrc.user\n")
	h.Write(filepath.Join(proj, ".bazelrc"), "build --jobs=4\ntry-import %workspace%/.bazelrc.user\n")
	harness.CommitAll(h, proj, "bazel")
	out := harness.PlantUnseen(t, h, proj, "imported bazelrc", `printf 'build --run_under=/tmp/x\n' > .bazelrc.user`)
	if !strings.Contains(out, filepath.Join(proj, ".bazelrc.user")) {
		t.Errorf("the exit did not name the .bazelrc.user the session wrote:\n%s", out)
	}
}

// TestReplayReview24bTaskFileIncludes: just reads what a justfile imports
// (import? 'local.justfile') and Task what a Taskfile includes, often
// ignored, by any name, as their own recipes. The exit judged a task
// file and a *.just by name only: the session writes the ignored files a
// tracked justfile and Taskfile.yml name. Host-side proof: git status
// says nothing, and the exit names both files the session wrote.
func TestReplayReview24bTaskFileIncludes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/local.justfile\n/tasks.local.yml\n")
	h.Write(filepath.Join(proj, "justfile"), "import? 'local.justfile'\n\nbuild:\n\techo built\n")
	h.Write(filepath.Join(proj, "Taskfile.yml"), "version: '3'\nincludes:\n  local:\n    taskfile: ./tasks.local.yml\n    optional: true\n")
	harness.CommitAll(h, proj, "tasks")
	out := harness.PlantUnseen(t, h, proj, "included task files", `
		printf 'build:\n\ttouch /tmp/x\n' > local.justfile
		printf "version: '3'\ntasks:\n  build:\n    cmds: [touch /tmp/x]\n" > tasks.local.yml`)
	for _, name := range []string{"local.justfile", "tasks.local.yml"} {
		if !strings.Contains(out, filepath.Join(proj, name)) {
			t.Errorf("the exit did not name the %s the session wrote:\n%s", name, out)
		}
	}
}
