package hostruns

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview27MiseEnvSources: the project's mise.toml, the user's
// own and trusted, sources scripts/env.sh (tracked) into the
// environment, puts bin on PATH, loads the ignored config/dev.conf, and its
// .tool-versions runs a tool from a directory of the project
// (path:./tools). mise's activate and mise exec run them at every prompt
// and command, outside direnv, and the exit audit read none of them:
// the session appends to scripts/env.sh, rewrites the tracked bin/git
// and tools/bin/node, and writes a git configuration into config/dev.conf
// (core.fsmonitor, which git status runs). Host-side proof: the host's
// git status and node under mise exec run nothing the session wrote.
func TestReplayReview27MiseEnvSources(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "config/dev.conf\n")
	h.Write(filepath.Join(proj, "mise.toml"), "[env]\n_.source = \"./scripts/env.sh\"\n_.path = [\"./bin\"]\n_.file = \"config/dev.conf\"\n")
	h.Write(filepath.Join(proj, ".tool-versions"), "node path:./tools\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export APP_ENV=dev\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	writeProgram(t, h, filepath.Join(proj, "tools", "bin", "node"), "exit 0")
	harness.CommitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf 'touch `+marker+`.source\n' >> scripts/env.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.path\nexec /usr/bin/git "$@"\n' > bin/git &&
		printf '#!/bin/sh\ntouch `+marker+`.tool\n' > tools/bin/node &&
		mkdir -p config && printf 'GIT_CONFIG_COUNT=1\nGIT_CONFIG_KEY_0=core.fsmonitor\nGIT_CONFIG_VALUE_0="touch `+marker+`.file"\n' > config/dev.conf`)
	for _, command := range []string{"git status", "node"} {
		ran, _ := h.Command(proj, nil, "mise", "exec", "--", "sh", "-c", command).CombinedOutput()
		for _, what := range []string{"source", "path", "tool", "file"} {
			if _, err := os.Stat(marker + "." + what); err == nil {
				t.Errorf("the host's %s under mise ran what the session wrote (%s):\n%s\n%s", command, what, out, ran)
				os.Remove(marker + "." + what)
			}
		}
	}
}

// TestReplayReview27BuildDirectoryState: CMake's CMakeCache.txt and
// Meson's meson-private/*.dat, in a build directory git ignores, are a
// build's configuration, which the host's build reads as it stands: a
// CMAKE_C_COMPILER_LAUNCHER the session adds to the cache is written
// into the regenerated makefiles (a changed cache regenerates them) and
// runs at the next compile, and Meson's coredata.dat is a Python pickle
// meson unpickles at every meson compile (and ninja's regeneration
// check), which runs what it says. The exit audit judged neither: the
// session rewrites both. Host-side proof: after the session, the host's
// cmake --build, after the user's next edit, and meson compile run
// nothing the session wrote.
func TestReplayReview27BuildDirectoryState(t *testing.T) {
	harness.RequireTool(t, "cmake", "apt-get install cmake")
	harness.RequireTool(t, "meson", "apt-get install meson ninja-build")
	harness.RequireTool(t, "cc", "apt-get install gcc")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n/mbuild/\n")
	h.Write(filepath.Join(proj, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.10)\nproject(app C)\nadd_executable(app main.c)\n")
	h.Write(filepath.Join(proj, "meson.build"), "project('app', 'c')\nexecutable('app', 'main.c')\n")
	h.Write(filepath.Join(proj, "main.c"), "int main(void) { return 0; }\n")
	harness.CommitAll(h, proj, "build")
	h.Run(proj, nil, "cmake", "-S", ".", "-B", "build")
	h.Run(proj, nil, "cmake", "--build", "build")
	h.Run(proj, nil, "meson", "setup", "mbuild")
	h.Run(proj, nil, "meson", "compile", "-C", "mbuild")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "build directories' state", `
		printf 'CMAKE_C_COMPILER_LAUNCHER:STRING=/bin/sh;-c;touch `+marker+`.cmake && exec "$0" "$@"\n' >> build/CMakeCache.txt
		printf "cos\nsystem\n(S'touch `+marker+`.meson'\ntR." > mbuild/meson-private/coredata.dat`)
	for _, name := range []string{"CMakeCache.txt", "coredata.dat"} {
		if !strings.Contains(out, name) {
			t.Errorf("the exit did not name the %s it moved aside:\n%s", name, out)
		}
	}
	h.Write(filepath.Join(proj, "main.c"), "int main(void) { return 1; }\n")
	for _, build := range [][]string{{"cmake", "--build", "build"}, {"meson", "compile", "-C", "mbuild"}} {
		ran, _ := h.Command(proj, nil, build[0], build[1:]...).CombinedOutput()
		if _, err := os.Stat(marker + "." + build[0]); err == nil {
			t.Errorf("the host's %s ran what the session wrote into its build directory:\n%s\n%s", strings.Join(build, " "), out, ran)
		}
	}
}

// TestReplayReview27DirenvrcTopLevel: the user's own direnvrc runs, at
// its top level, source_env_if_exists config/direnv.local (ignored) and
// PATH_add tools, which direnv runs before each .envrc, from its
// directory. The exit audit read only the functions the direnvrc
// defines: the session writes config/direnv.local and rewrites the
// tracked tools/git. Host-side proof: the host's git status under
// direnv, the .envrc allowed before, runs nothing the session wrote.
func TestReplayReview27DirenvrcTopLevel(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".config", "direnv", "direnvrc"), "layout_x() {\n  PATH_add x\n}\nsource_env_if_exists config/direnv.local\nPATH_add tools\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "config/direnv.local\n")
	h.Write(filepath.Join(proj, ".envrc"), "export APP_ENV=dev\n")
	writeProgram(t, h, filepath.Join(proj, "tools", "git"), "exec /usr/bin/git \"$@\"")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `mkdir -p config && printf 'touch `+marker+`.top\n' > config/direnv.local &&
		printf '#!/bin/sh\ntouch `+marker+`.path\nexec /usr/bin/git "$@"\n' > tools/git`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"top", "path"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under direnv ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview27EnvrcSourcesByAbsolutePath: the project's .envrc
// sources scripts/env.sh by its absolute path and scripts/home.sh by
// $HOME/. The exit audit took an absolute name for one outside the
// project and $HOME/ for one it cannot spell, under which only programs
// and ignored files count: the session appends to the two tracked
// scripts. Host-side proof: the host's git status under direnv, the
// .envrc allowed before, runs nothing the session wrote.
func TestReplayReview27EnvrcSourcesByAbsolutePath(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env "+filepath.Join(proj, "scripts", "env.sh")+"\nsource_env_if_exists \"$HOME/proj/scripts/home.sh\"\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export APP_ENV=dev\n")
	h.Write(filepath.Join(proj, "scripts", "home.sh"), "export APP_HOME=1\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf 'touch `+marker+`.abs\n' >> scripts/env.sh &&
		printf 'touch `+marker+`.home\n' >> scripts/home.sh`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"abs", "home"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under direnv ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview27NixJoinedPath: the project's .envrc uses nix, whose
// shell.nix imports its shellHook from ./. + "/nix/hook.nix" (tracked),
// a path joined from the directory and a string; the exit audit read
// the paths a .nix file spells whole only: the session rewrites
// nix/hook.nix. Host-side proof: the host's direnv, the .envrc allowed,
// evaluates the dev shell with nix-shell and runs nothing the session
// wrote. (nix is the test process's own, a single-user store root
// writes; the dev shell's stdenv is the project's, a setup that runs the
// shellHook as nixpkgs' does.)
func TestReplayReview27NixJoinedPath(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	nixShell := harness.RequireTool(t, "nix-shell", "https://nixos.org/download")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "use nix\n")
	h.Write(filepath.Join(proj, "shell.nix"), "derivation {\n  name = \"dev\";\n  system = builtins.currentSystem;\n  builder = \"/bin/sh\";\n  stdenv = ./stdenv;\n  shellHook = import (./. + \"/nix/hook.nix\");\n}\n")
	h.Write(filepath.Join(proj, "stdenv", "setup"), "eval \"${shellHook:-}\"\n")
	h.Write(filepath.Join(proj, "nix", "hook.nix"), "\"export APP_ENV=dev\"\n")
	harness.CommitAll(h, proj, "nix")
	marker := h.Marker()
	out := h.Plant(proj, "nix/hook.nix", `printf '"/usr/bin/touch `+marker+`"\n' > nix/hook.nix`)
	direnv := func(args ...string) string {
		c := exec.Command("direnv", args...)
		c.Dir = proj
		c.Env = []string{"HOME=" + h.Home, "PATH=" + filepath.Dir(nixShell) + ":/usr/local/bin:/usr/bin:/bin"}
		b, _ := c.CombinedOutput()
		return string(b)
	}
	if !strings.Contains(out, "nix/hook.nix") {
		t.Errorf("the exit did not name the nix/hook.nix it moved aside:\n%s", out)
	}
	direnv("allow", ".")
	ran := direnv("exec", ".", "true")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's direnv ran the shellHook the session wrote:\n%s\n%s", out, ran)
	}
}

// TestReplayReview27EnvrcSourcedByExpansion: the project's .envrc
// sources "$(git rev-parse --show-toplevel)/scripts/env.sh" (tracked, not
// executable) and each env.d/*.sh by a loop's variable. The exit audit
// took both for names it cannot spell, under which only programs and
// ignored files count: the session appends a line to each tracked
// script. Host-side proof: the host's git status under direnv, the
// .envrc allowed before, runs nothing the session wrote.
func TestReplayReview27EnvrcSourcedByExpansion(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env \"$(git rev-parse --show-toplevel)/scripts/env.sh\"\nfor f in env.d/*.sh; do source_env \"$f\"; done\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export APP_ENV=dev\n")
	h.Write(filepath.Join(proj, "env.d", "db.sh"), "export DB_PORT=5432\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the scripts", `printf 'touch `+marker+`.toplevel\n' >> scripts/env.sh &&
		printf 'touch `+marker+`.loop\n' >> env.d/db.sh`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"toplevel", "loop"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under direnv ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview27EnvrcUseGuix: direnv's stdlib use guix (2.33 and
// later) runs `guix shell --search-paths` with the .envrc's arguments,
// which with no package named loads the guix.scm (or manifest.scm) of
// the directory: Scheme that guix evaluates on the host, at every cd
// into the project, the .envrc allowed before and unchanged. The exit
// audit took use guix for a use whose evaluated files it judges, and
// named none: a guix.scm the session wrote where .gitignore hides it
// stayed, git status showing nothing, as did a manifest.scm it changed
// and one an option names (use guix -m tools.scm). Proof: the end moves
// each aside and names it; none is left where guix reads it.
func TestReplayReview27EnvrcUseGuix(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "guix.scm\ntools.scm\n")
	h.Write(filepath.Join(proj, ".envrc"), "use guix\n")
	h.Write(filepath.Join(proj, "ops", ".envrc"), "use guix --manifest=tools.scm\n")
	h.Write(filepath.Join(proj, "manifest.scm"), "(specifications->manifest (list \"hello\"))\n")
	harness.CommitAll(h, proj, "envrc")
	marker := h.Marker()
	planted := `(system "touch ` + marker + `")` + "\n"
	out := harness.PlantUnseen(t, h, proj, "guix.scm", `printf '`+planted+`' > guix.scm; printf '`+planted+`' > ops/tools.scm`)
	out += h.InsideStderr(proj, `printf '`+planted+`' >> manifest.scm`)
	for _, rel := range []string{"guix.scm", "ops/tools.scm", "manifest.scm"} {
		b, err := os.ReadFile(filepath.Join(proj, rel))
		if err == nil && strings.Contains(string(b), marker) {
			t.Errorf("what the session wrote in %s, which guix evaluates at the host's next cd, stayed:\n%s", rel, out)
		}
		if !strings.Contains(out, filepath.Join(proj, rel)) {
			t.Errorf("the end does not name %s:\n%s", rel, out)
		}
	}
}
