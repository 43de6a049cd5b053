package hostrunslate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/project"
)

// TestReplayReview44NixShellIgnored: a project that does not use Nix
// often has git ignore the shell.nix (and the .nix files it imports) a
// developer keeps for himself, and nix-shell, typed in the project,
// evaluates it and runs its stdenv's setup and shellHook in the host's
// shell. The exit audit judged a .nix file only where an .envrc's use nix
// named it: the session rewrites the ignored shell.nix and nix/hook.nix,
// git status showing nothing. Host-side proof: the host's nix-shell runs
// nothing the session wrote. (nix is the test process's own, a
// single-user store root writes; the dev shell's stdenv is the project's,
// a setup that runs the shellHook as nixpkgs' does.)
func TestReplayReview44NixShellIgnored(t *testing.T) {
	nixShell := harness.RequireTool(t, "nix-shell", "https://nixos.org/download")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "shell.nix\nnix/\n")
	h.Write(filepath.Join(proj, "README"), "app\n")
	harness.CommitAll(h, proj, "app")
	h.Write(filepath.Join(proj, "shell.nix"), "derivation {\n  name = \"dev\";\n  system = builtins.currentSystem;\n  builder = \"/bin/sh\";\n  stdenv = ./nix/stdenv;\n  shellHook = import ./nix/hook.nix;\n}\n")
	h.Write(filepath.Join(proj, "nix", "stdenv", "setup"), "eval \"${shellHook:-}\"\n")
	h.Write(filepath.Join(proj, "nix", "hook.nix"), "\"export APP_ENV=dev\"\n")
	marker := h.Marker()
	for _, tc := range []struct{ name, plant string }{
		{"shell.nix", `sed -i 's|import ./nix/hook.nix|"/usr/bin/touch ` + marker + `"|' shell.nix`},
		{"an import", `printf '"/usr/bin/touch ` + marker + `"\n' > nix/hook.nix`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string][]byte{}
			for _, f := range []string{"shell.nix", "nix/hook.nix"} {
				b, err := os.ReadFile(filepath.Join(proj, f))
				harness.Must(t, err)
				before[f] = b
			}
			defer func() {
				for f, b := range before {
					harness.Must(t, os.WriteFile(filepath.Join(proj, f), b, 0o644))
				}
			}()
			out := h.Plant(proj, tc.name, tc.plant)
			c := exec.Command(nixShell, "--run", "true")
			c.Dir = proj
			c.Env = []string{"HOME=" + h.Home, "PATH=" + filepath.Dir(nixShell) + ":/usr/local/bin:/usr/bin:/bin"}
			ran, _ := c.CombinedOutput()
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the host's nix-shell ran what the session wrote:\n%s\n%s", out, ran)
				os.Remove(marker)
			}
		})
	}
}

// TestReplayReview44IgnoredRequirements: the exit names pip install -r
// requirements.txt as the way to install a virtualenv's packages again,
// and a developer runs it as often unasked; a requirements.txt kept out
// of git (pip freeze's, a local one) stayed where the session rewrote it,
// git status showing nothing. The session adds -e of a package in the
// project's own instance (the sandbox writes it as its
// ~/.claude/projects, and no audit walks it). Host-side proof: the
// host's pip install -r requirements.txt runs nothing planted.
func TestReplayReview44IgnoredRequirements(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3-venv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\nrequirements.txt\n")
	h.Write(filepath.Join(proj, "app.py"), "print('app')\n")
	harness.CommitAll(h, proj, "app")
	h.Run(proj, nil, "python3", "-m", "venv", ".venv")
	h.Write(filepath.Join(proj, "requirements.txt"), "# pip freeze\n")
	outside := filepath.Join(h.Home, ".claudebox", "projects", project.Hash(proj), "evil")
	out := h.Plant(proj, "a requirement in the instance", `mkdir -p ~/.claude/projects/evil
		printf 'open("`+h.Marker()+`", "w").close()\nfrom setuptools import setup\nsetup(name="evil", version="1")\n' > ~/.claude/projects/evil/setup.py
		echo '-e `+outside+`' >> requirements.txt`)
	h.RunsNothingPlanted(out, proj, nil, filepath.Join(proj, ".venv", "bin", "pip"), "install", "--no-index", "-r", "requirements.txt")
}

// TestReplayReview44VersionFilePath: version managers read a
// .<tool>-version where they start (mise's idiomatic version files, which
// a user enables per tool, goenv's, jenv's, tfenv's), and mise takes a
// path: version for the tool's installation, whose programs its activated
// shell runs by their names. The registry guards only .python-version,
// .ruby-version, .node-version; a .go-version the session wrote named a
// go in the project's own instance (the sandbox writes it as its
// ~/.claude/projects, and no audit walks it), git status showing one new
// file. Host-side proof: the host's mise exec -- go runs nothing planted.
func TestReplayReview44VersionFilePath(t *testing.T) {
	mise := harness.RequireTool(t, "mise", "https://mise.jdx.dev")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "main.go"), "package main\n\nfunc main() {}\n")
	harness.CommitAll(h, proj, "app")
	outside := filepath.Join(h.Home, ".claudebox", "projects", project.Hash(proj), "go")
	out := h.Plant(proj, "a go by its path", `mkdir -p ~/.claude/projects/go/bin
		printf '#!/bin/sh\ntouch `+h.Marker()+`\n' > ~/.claude/projects/go/bin/go
		chmod +x ~/.claude/projects/go/bin/go
		echo 'path:`+outside+`' > .go-version`)
	h.RunsNothingPlanted(out, proj, []string{"MISE_IDIOMATIC_VERSION_FILE_ENABLE_TOOLS=go"}, mise, "exec", "--", "go", "version")
}
