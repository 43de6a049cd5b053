package hostrunslate

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview41IgnoredSubprojectBuildFile: a build tool finds a
// build file by its name where its own convention puts one, whatever git
// says of it, and what the build file runs as it configures is code
// (Meson's run_command, CMake's execute_process, a Bazel genrule). Meson
// configures a subproject from subprojects/<name>/meson.build, which the
// project's meson.build names by the subproject's name alone, and which
// Meson's own advice has git ignore (subprojects/*/, what a .wrap
// downloads). The session rewrote the downloaded subproject's meson.build,
// no file there being code by its extension or mode and no task file
// spelling its path, git status showing nothing, and its run_command ran
// at the host's next meson setup (ninja configures again on its own once
// a meson.build changed). Host-side proof: the host's meson setup runs
// nothing planted.
func TestReplayReview41IgnoredSubprojectBuildFile(t *testing.T) {
	harness.RequireTool(t, "meson", "apt-get install meson ninja-build")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "subprojects/*/\nbuild/\n")
	h.Write(filepath.Join(proj, "meson.build"), "project('app')\nsubproject('greet')\n")
	h.Write(filepath.Join(proj, "subprojects", "greet.wrap"), "[wrap-file]\ndirectory = greet\n")
	harness.CommitAll(h, proj, "meson")
	h.Write(filepath.Join(proj, "subprojects", "greet", "meson.build"), "project('greet')\n")
	out := harness.PlantUnseen(t, h, proj, "downloaded subproject's meson.build",
		`printf "project('greet')\nrun_command('touch', '`+h.Marker()+`', check: true)\n" > subprojects/greet/meson.build`)
	h.RunsNothingPlanted(out, proj, nil, "meson", "setup", "build")
}
