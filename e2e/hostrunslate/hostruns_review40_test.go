package hostrunslate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview40IgnoredWorkspacePackage: npm takes every folder its
// workspaces' patterns match for a package of the project, whether git
// ignores it or not, and npm install runs each one's install scripts,
// which a package.json holds in its own text: a pattern that spells no
// folder ("*") matched the dist the session made, dist/ being ignored,
// and its postinstall ran at the host's npm install, git status showing
// nothing (a pattern that spells its folder, packages/*, has the exit
// take every ignored file below packages/ for one a task file names).
// Host-side proof: the host's npm install runs nothing planted.
func TestReplayReview40IgnoredWorkspacePackage(t *testing.T) {
	harness.RequireTool(t, "npm", "apt-get install npm")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\ndist/\n")
	h.Write(filepath.Join(proj, "package.json"), `{"name":"root","private":true,"workspaces":["*"]}`+"\n")
	h.Write(filepath.Join(proj, "app", "package.json"), `{"name":"app","version":"1.0.0"}`+"\n")
	harness.CommitAll(h, proj, "workspaces")
	out := harness.PlantUnseen(t, h, proj, "ignored workspace package", `mkdir -p dist && echo '{"name":"tools","version":"1.0.0","scripts":{"postinstall":"touch `+h.Marker()+`"}}' > dist/package.json`)
	h.RunsNothingPlanted(out, proj, nil, "npm", "install", "--offline", "--no-audit", "--no-fund", "--no-update-notifier")
}

// TestReplayReview40IgnoredWorkspaceCrate: cargo takes every folder its
// workspace's members match for a crate of the workspace, whether git
// ignores it or not, and builds it, running its build script, at the
// host's cargo build; a crate's manifest names its build script and its
// library by any path, which rustc compiles whatever its name. crates/*
// matched the crates/debug the session made (debug/ ignored, as the Rust
// .gitignore GitHub offers has it), whose manifest named b.txt as its
// build script: no file there was code by its name, and git status
// showed nothing. Host-side proof: the host's cargo build runs nothing
// planted. (cargo is the test process's own, as in
// TestReplayReview26CargoBuildScriptOutput.)
func TestReplayReview40IgnoredWorkspaceCrate(t *testing.T) {
	cargo := harness.RequireTool(t, "cargo", "https://rustup.rs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "debug/\ntarget/\n")
	h.Write(filepath.Join(proj, "Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n")
	h.Write(filepath.Join(proj, "crates", "app", "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	h.Write(filepath.Join(proj, "crates", "app", "src", "main.rs"), "fn main() {}\n")
	harness.CommitAll(h, proj, "workspace")
	out := harness.PlantUnseen(t, h, proj, "ignored workspace crate", `mkdir -p crates/debug
		printf '[package]\nname = "tools"\nversion = "0.1.0"\nedition = "2021"\nbuild = "b.txt"\n[lib]\npath = "l.txt"\n' > crates/debug/Cargo.toml
		echo 'fn main() { std::fs::write("`+h.Marker()+`", "").unwrap(); }' > crates/debug/b.txt
		: > crates/debug/l.txt`)
	c := exec.Command(cargo, "build", "--offline")
	c.Dir = proj
	ran, _ := c.CombinedOutput()
	if _, err := os.Lstat(h.Marker()); err == nil {
		t.Errorf("the host's cargo build ran the build script the session planted:\n%s\n%s", out, ran)
	}
}

// TestReplayReview40PytestConfigWritesOutside: pytest takes its options
// from the first of pytest.ini, .pytest.ini, pyproject.toml, tox.ini and
// setup.cfg that configures it, from the directory of the tests it
// collects up, and an editor's test discovery runs its collection as the
// folder opens, before git status is read. The exit moved aside a
// pytest.ini or tox.ini the session made, not a setup.cfg or a
// pyproject.toml: one that tests/ held, untracked, whose addopts had
// --debug write pytest's log to ~/.bashrc (a line of it a folder's name
// the session chose), overwrote it at the host's pytest --collect-only.
// Host-side proof: after the session, the host's pytest --collect-only
// leaves ~/.bashrc as it was.
func TestReplayReview40PytestConfigWritesOutside(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	for name, c := range map[string]struct{ file, text string }{
		"setup.cfg":      {"setup.cfg", "[tool:pytest]\naddopts = --debug=%s\n"},
		"pyproject.toml": {"pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"--debug=%s\"\n"},
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			if err := h.Command(h.Home, nil, "python3", "-c", "import pytest").Run(); err != nil {
				t.Skip("pytest is not installed: apt-get install python3-pytest")
			}
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, "tests", "test_app.py"), "def test_app():\n    assert True\n")
			harness.CommitAll(h, proj, "tests")
			bashrc := filepath.Join(h.Home, ".bashrc")
			h.Write(bashrc, "alias ll='ls -l'\n")
			before, err := os.ReadFile(bashrc)
			harness.Must(t, err)
			out := h.Plant(proj, "pytest's configuration", `printf '`+strings.ReplaceAll(c.text, "\n", `\n`)+`' '`+bashrc+`' > tests/`+c.file)
			ran, _ := h.Command(proj, nil, "python3", "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", "tests").CombinedOutput()
			if after, _ := os.ReadFile(bashrc); string(after) != string(before) {
				t.Errorf("the host's pytest wrote ~/.bashrc as the session's %s said:\n%s\n%s", c.file, out, ran)
			}
		})
	}
}
