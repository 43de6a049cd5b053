package hostrunslate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34IgnoredScriptInNamedDir: a tracked Makefile runs a
// file git ignores in a directory it names, by a name it does not build
// from that directory's path: cd build && sh gen, sh $(OUT)/$(X), a
// directory it runs whole (find build -exec sh {} \;), a name it globs
// ($(wildcard build/ge*)), or an npm script's sh scripts/$npm_package_config_x.
// The session made the file with no #! line, no extension and no execute
// bit; the exit asked only whether the task file named its path, or its
// directory followed by a variable or a pattern: it stayed, and the
// host's make ran it. Host-side proof: the host's make gen (npm run gen)
// runs nothing planted.
func TestReplayReview34IgnoredScriptInNamedDir(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	for name, c := range map[string]struct{ file, text, plant string }{
		"cd":        {"Makefile", "gen:\n\tmkdir -p build && cd build && (test -e gen || echo : > gen) && sh gen\n", "build/gen"},
		"variables": {"Makefile", "OUT := build\nX := gen\ngen:\n\tmkdir -p $(OUT) && test -e $(OUT)/$(X) || echo : > $(OUT)/$(X)\n\tsh $(OUT)/$(X)\n", "build/gen"},
		"glob":      {"Makefile", "gen:\n\tfor f in $(wildcard build/ge*); do sh $$f; done\n", "build/gen"},
		"find":      {"Makefile", "gen:\n\tmkdir -p build && find build -type f -exec sh {} \\;\n", "build/hooks/x"},
		"npm":       {"package.json", `{"name":"x","version":"1.0.0","config":{"x":"gen"},"scripts":{"gen":"sh scripts/$npm_package_config_x"}}` + "\n", "scripts/gen"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := []string{"make", "gen"}
			if c.file == "package.json" {
				harness.RequireTool(t, "npm", "apt-get install npm")
				cmd = []string{"npm", "run", "--silent", "gen"}
			}
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/"+strings.SplitN(c.plant, "/", 2)[0]+"/\n")
			h.Write(filepath.Join(proj, c.file), c.text)
			harness.CommitAll(h, proj, "task")
			out := harness.PlantUnseen(t, h, proj, "ignored script", `mkdir -p `+filepath.Dir(c.plant)+` && echo 'touch `+h.Marker()+`' > `+c.plant)
			h.RunsNothingPlanted(out, proj, nil, cmd[0], cmd[1:]...)
		})
	}
}

// TestReplayReview34IgnoredScriptRunByBuildFile: CMake's configure runs
// what a tracked CMakeLists.txt's execute_process names, and Meson's what
// a meson.build's run_command names, as make runs a recipe's: a file git
// ignores the session made (tools/gen, no #! line, extension or execute
// bit) stayed, as only a makefile, a justfile, a Taskfile, a Rakefile and
// a package.json were read for the paths they name, and the host's cmake
// -B build (meson setup build) ran it. Host-side proof: the host's
// configure runs nothing planted.
func TestReplayReview34IgnoredScriptRunByBuildFile(t *testing.T) {
	for name, c := range map[string]struct {
		file, text string
		cmd        []string
	}{
		"cmake": {"CMakeLists.txt", "cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\nexecute_process(COMMAND sh ${CMAKE_SOURCE_DIR}/tools/gen)\n", []string{"cmake", "-S", ".", "-B", "build"}},
		"meson": {"meson.build", "project('x')\nrun_command('sh', 'tools/gen', check: false)\n", []string{"meson", "setup", "build"}},
	} {
		t.Run(name, func(t *testing.T) {
			harness.RequireTool(t, c.cmd[0], "apt-get install "+c.cmd[0])
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n/build/\n")
			h.Write(filepath.Join(proj, c.file), c.text)
			harness.CommitAll(h, proj, "build")
			out := harness.PlantUnseen(t, h, proj, "ignored script", `mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/gen`)
			h.RunsNothingPlanted(out, proj, nil, c.cmd[0], c.cmd[1:]...)
		})
	}
}
