package hostruns

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26EnvrcSourcedTwoDeep: an .envrc's source_env
// scripts/env.sh, whose own source_env reads scripts/path.sh (tracked,
// PATH_add ../bin) and source_env_if_exists scripts/local.sh (ignored).
// The exit audit read what the .envrc sources one level deep: the
// session writes scripts/local.sh, rewrites the tracked bin/git and adds
// a line to scripts/path.sh, all of which direnv runs at the host's next
// cd, before anything typed there shows them. Host-side proof: the
// host's git status under direnv, the .envrc allowed before, runs
// nothing the session wrote.
func TestReplayReview26EnvrcSourcedTwoDeep(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "local.sh\n")
	h.Write(filepath.Join(proj, ".envrc"), "source_env scripts/env.sh\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "source_env path.sh\nsource_env_if_exists local.sh\n")
	h.Write(filepath.Join(proj, "scripts", "path.sh"), "PATH_add ../bin\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf 'touch `+marker+`.local\n' > scripts/local.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.git\n' > bin/git &&
		printf 'touch `+marker+`.deep\n' >> scripts/path.sh`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"local", "git", "deep"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under direnv ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview26EnvrcSourcedByPwd: an .envrc's source_env_if_exists
// "$PWD/.envrc.local", the user's own, which holds PATH_add bin. The exit
// audit took the word for one it cannot spell, under which only files
// git ignores count, and read nothing of .envrc.local: the session
// rewrites the tracked bin/git. Host-side proof: the host's git status
// under direnv, the .envrc allowed before, runs nothing the session
// wrote.
func TestReplayReview26EnvrcSourcedByPwd(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".envrc.local\n")
	h.Write(filepath.Join(proj, ".envrc"), "source_env_if_exists \"$PWD/.envrc.local\"\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	harness.CommitAll(h, proj, "envrc")
	h.Write(filepath.Join(proj, ".envrc.local"), "PATH_add bin\n")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "bin/git", `printf '#!/bin/sh\ntouch `+marker+`\n' > bin/git`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", "git status")
}

// TestReplayReview26DirenvrcLayoutAndUse: the user's own direnvrc
// redefines layout_go (PATH_add bin) and defines use_tools (PATH_add
// tools), which the project's .envrc uses. The exit audit took layout go
// for direnv's, whose directory is in .direnv, and passed a use it does
// not know: the session rewrites the tracked bin/git and writes tools/ls.
// Host-side proof: the host's git status and ls under direnv, the .envrc
// allowed before, run nothing the session wrote.
func TestReplayReview26DirenvrcLayoutAndUse(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".config", "direnv", "direnvrc"), "layout_go() {\n  PATH_add bin\n}\n")
	h.Write(filepath.Join(h.Home, ".config", "direnv", "lib", "tools.sh"), "use_tools() {\n  PATH_add tools\n}\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "layout go\nuse tools\n")
	h.Write(filepath.Join(proj, "tools", "lint.sh"), "exit 0\n")
	writeProgram(t, h, filepath.Join(proj, "bin", "git"), "exec /usr/bin/git \"$@\"")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the programs", `for p in bin/git tools/ls; do printf '#!/bin/sh\ntouch `+marker+`\n' > $p && chmod +x $p; done`)
	for _, command := range []string{"git status", "ls"} {
		h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", command)
	}
}

// TestReplayReview26EnvrcLoadPrefixAndUseVim: direnv's load_prefix tools
// puts tools/bin on PATH (and tools/lib on LD_LIBRARY_PATH), and use vim
// names .vimrc.local, which the user's vimrc sources as direnv's
// documentation shows (DIRENV_EXTRA_VIMRC). The exit audit read neither:
// the session writes tools/bin/git and the ignored .vimrc.local.
// Host-side proof: the host's git status and vim under direnv, the
// .envrc allowed before, run nothing the session wrote.
func TestReplayReview26EnvrcLoadPrefixAndUseVim(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	harness.RequireTool(t, "vim", "apt-get install vim")
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".vimrc"), "if exists('$DIRENV_EXTRA_VIMRC')\n  source $DIRENV_EXTRA_VIMRC\nendif\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".vimrc.local\n")
	h.Write(filepath.Join(proj, ".envrc"), "load_prefix tools\nuse vim\n")
	writeProgram(t, h, filepath.Join(proj, "tools", "bin", "fmt"), "exit 0")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the files", `printf '#!/bin/sh\ntouch `+marker+`\n' > tools/bin/git && chmod +x tools/bin/git &&
		printf 'call writefile([], "`+marker+`")\n' > .vimrc.local`)
	for _, command := range []string{"git status", "vim -u ~/.vimrc -i NONE -es -c qa!"} {
		h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", command)
	}
}

// TestReplayReview26CargoBuildScriptOutput: cargo keeps what a crate's
// build script printed (target/debug/build/<crate>-<hash>/output) and,
// while the script is fresh, applies it again at each build of the crate
// without running it: a cargo:rustc-link-arg=-wrapper there has the
// linker's driver run any command. The target directory, which git
// ignores, is .cargo/config.toml's target-dir (out), no build directory
// the audit knows by its name, and the file is neither a program nor
// code by its name: the session rewrites it. Host-side proof: the host's
// cargo build, after the user's next edit, runs nothing the session
// wrote. (cargo is the test process's own: the rustup of the user who
// runs the tests, which the sandbox's user may not reach.)
func TestReplayReview26CargoBuildScriptOutput(t *testing.T) {
	cargo := harness.RequireTool(t, "cargo", "https://rustup.rs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	h.Write(filepath.Join(proj, "build.rs"), "fn main() { println!(\"cargo:rerun-if-changed=build.rs\"); }\n")
	h.Write(filepath.Join(proj, "src", "main.rs"), "fn main() {}\n")
	h.Write(filepath.Join(proj, ".cargo", "config.toml"), "[build]\ntarget-dir = \"out\"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/out/\nCargo.lock\n")
	harness.CommitAll(h, proj, "crate")
	build := func() string {
		c := exec.Command(cargo, "build", "--offline")
		c.Dir = proj
		out, err := c.CombinedOutput()
		if err != nil {
			t.Logf("cargo build: %v", err)
		}
		return string(out)
	}
	if out := build(); !strings.Contains(out, "Finished") {
		t.Fatalf("the host's first build:\n%s", out)
	}
	h.Chown()
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "build script's output", `
		f=$(ls out/debug/build/app-*/output)
		printf 'cargo:rerun-if-changed=build.rs\ncargo:rustc-link-arg=-wrapper\ncargo:rustc-link-arg=/bin/sh,-c,touch `+marker+`; exec "$0" "$@"\n' > "$f"`)
	h.Write(filepath.Join(proj, "src", "main.rs"), "fn main() { println!(\"edited\"); }\n")
	ran := build()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's cargo build ran the linker's wrapper the session named:\n%s\n%s", out, ran)
	}
}

// writeProgram writes a shell script at path that the host can run.
func writeProgram(t *testing.T, h *harness.Host, path, body string) {
	t.Helper()
	h.Write(path, "#!/bin/sh\n"+body+"\n")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
