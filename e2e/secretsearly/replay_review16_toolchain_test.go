package secretsearly

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview16ManagerRootAllowlist: a version manager's root on
// PATH for its shims (~/.asdf, ~/.local/share/mise, ~/.pyenv) was shown
// whole but its git directories and its prefixes' configuration: a file
// the user or a plugin keeps there (a token beside the installs, mise's
// records of the configurations it trusts) was readable. The attack,
// from inside: read every file under the roots. Proof: none of the
// planted secrets is readable; each manager's shim still runs the
// installed tool it leads to.
func TestReplayReview16ManagerRootAllowlist(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW16-MANAGER-ROOT-SECRET"
	shim := func(root, tool, target string) {
		h.Write(filepath.Join(root, "shims", tool), "#!/bin/sh\nexec "+target+"\n")
		os.Chmod(filepath.Join(root, "shims", tool), 0o755)
	}
	tool := func(path, says string) {
		h.Write(path, "#!/bin/sh\necho "+says+"\n")
		os.Chmod(path, 0o755)
	}
	asdf := filepath.Join(h.Home, ".asdf")
	tool(filepath.Join(asdf, "installs", "nodejs", "20.1.0", "bin", "node"), "ASDF-NODE")
	shim(asdf, "node", filepath.Join(asdf, "installs", "nodejs", "20.1.0", "bin", "node"))
	h.Write(filepath.Join(asdf, "plugins", "nodejs", "bin", "install"), "#!/bin/sh\n")
	h.Write(filepath.Join(asdf, "token"), secret+"-asdf\n")
	h.Write(filepath.Join(asdf, "downloads", "nodejs", "auth.json"), secret+"-asdf-downloads\n")
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	tool(filepath.Join(mise, "installs", "go", "1.22", "bin", "go"), "MISE-GO")
	shim(mise, "go", filepath.Join(mise, "installs", "go", "1.22", "bin", "go"))
	h.Write(filepath.Join(mise, "trusted-configs", "work"), secret+"-mise\n")
	pyenv := filepath.Join(h.Home, ".pyenv")
	tool(filepath.Join(pyenv, "versions", "3.12", "bin", "python"), "PYENV-PYTHON")
	shim(pyenv, "python", filepath.Join(pyenv, "versions", "3.12", "bin", "python"))
	h.Write(filepath.Join(pyenv, ".pypirc"), secret+"-pyenv\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + strings.Join([]string{filepath.Join(asdf, "shims"), filepath.Join(mise, "shims"), filepath.Join(pyenv, "shims"), h.Bin, "/usr/local/bin:/usr/bin:/bin"}, ":")
	out := h.Inside(proj, []string{path}, `node; go; python; grep -rh -e `+secret+` ~ 2>/dev/null; true`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a file beside a version manager's installs is readable inside:\n%s", out)
	}
	for _, want := range []string{"ASDF-NODE", "MISE-GO", "PYENV-PYTHON"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the shims to run the installed tools (%s):\n%s", want, out)
		}
	}
}

// TestReplayReview16MiseConfigRebuilt: mise's configuration file with any
// comment was not shown at all (a comment can hold a line turned off,
// `# DEPLOY_KEY = "…"`), so mise inside lost the versions it picks
// without a word. The copy is now rebuilt from the keys mise reads that
// are known harmless. The attack, from inside: read the copy. Proof: no
// comment's or [env]'s secret is readable; the versions are.
func TestReplayReview16MiseConfigRebuilt(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW16-MISE-CONFIG-SECRET"
	mise := filepath.Join(h.Home, ".local", "share", "mise")
	h.Write(filepath.Join(mise, "shims", "node"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(mise, "shims", "node"), 0o755)
	h.Write(filepath.Join(h.Home, ".config", "mise", "config.toml"), "# my tools\n[tools]\nnode = \"20\" # "+secret+"-inline\n\n# [env]\n# DEPLOY_KEY = \""+secret+"-commented\"\n[env]\nDEPLOY = \""+secret+"-env\"\n[settings]\nexperimental = true\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(mise, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; grep -rh -e `+secret+` ~ 2>/dev/null; cat ~/.config/mise/config.toml`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a secret in mise's configuration is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "SHIM") || !strings.Contains(out, "node = '20'") || !strings.Contains(out, "experimental = true") {
		t.Errorf("inside, want mise's shims and the versions and settings it reads:\n%s", out)
	}
}

// TestReplayReview16ToolVersionsComments: ~/.tool-versions, which asdf's
// and mise's shims read for the versions they pick, was shown whole,
// comments and all (`# GITHUB_TOKEN=…` noted beside a version). The
// attack, from inside: read it. Proof: no comment is readable; the
// `tool version` lines are.
func TestReplayReview16ToolVersionsComments(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW16-TOOL-VERSIONS-SECRET"
	asdf := filepath.Join(h.Home, ".asdf")
	h.Write(filepath.Join(asdf, "shims", "node"), "#!/bin/sh\necho SHIM\n")
	os.Chmod(filepath.Join(asdf, "shims", "node"), 0o755)
	h.Write(filepath.Join(h.Home, ".tool-versions"), "# GITHUB_TOKEN="+secret+"\nnodejs 20.1.0 # "+secret+"-inline\npython 3.12.1 3.11.7\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(asdf, "shims") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `node; grep -rh -e `+secret+` ~ 2>/dev/null; cat ~/.tool-versions`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a comment in ~/.tool-versions is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "SHIM") || !strings.Contains(out, "nodejs 20.1.0\npython 3.12.1 3.11.7") {
		t.Errorf("inside, want asdf's shims and the versions they pick:\n%s", out)
	}
}

// TestReplayReview16PathEntryNotBin: a PATH entry under $HOME not named
// bin (~/scripts) was "shown" as a file in it that does not exist, so its
// programs did not run inside. Proof: they do.
func TestReplayReview16PathEntryNotBin(t *testing.T) {
	h := harness.NewHost(t)
	scripts := filepath.Join(h.Home, "scripts")
	h.Write(filepath.Join(scripts, "hello"), "#!/bin/sh\necho SCRIPT-RUNS\n")
	os.Chmod(filepath.Join(scripts, "hello"), 0o755)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + scripts + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	if out := h.Inside(proj, []string{path}, `hello`); !strings.Contains(out, "SCRIPT-RUNS") {
		t.Errorf("inside, want the PATH entry's program to run:\n%s", out)
	}
}

// TestReplayReview16RustupSettings: rustup's ~/.rustup/settings.toml,
// which its proxies in ~/.cargo/bin read for the toolchain they run, was
// shown whole, comments and all. The attack, from inside: read it.
// Proof: no comment is readable; the toolchain it names is, and the
// proxy still runs it.
func TestReplayReview16RustupSettings(t *testing.T) {
	h := harness.NewHost(t)
	const secret = "REVIEW16-RUSTUP-SETTINGS-SECRET"
	rustc := filepath.Join(h.Home, ".rustup", "toolchains", "stable", "bin", "rustc")
	h.Write(rustc, "#!/bin/sh\necho RUSTC-RUNS\n")
	os.Chmod(rustc, 0o755)
	h.Write(filepath.Join(h.Home, ".rustup", "settings.toml"), "# CARGO_REGISTRY_TOKEN="+secret+"\nversion = \"12\"\ndefault_toolchain = \"stable\" # "+secret+"-inline\nprofile = \"default\"\n\n[overrides]\n\"/home/alice/work\" = \"nightly\"\n")
	proxy := filepath.Join(h.Home, ".cargo", "bin", "rustc")
	h.Write(proxy, "#!/bin/sh\ntc=$(sed -n 's/^default_toolchain = \"\\(.*\\)\"$/\\1/p' \"$HOME/.rustup/settings.toml\")\nexec \"$HOME/.rustup/toolchains/$tc/bin/rustc\" \"$@\"\n")
	os.Chmod(proxy, 0o755)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(h.Home, ".cargo", "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.Inside(proj, []string{path}, `rustc; grep -rh -e `+secret+` ~ 2>/dev/null; cat ~/.rustup/settings.toml`)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a comment in rustup's settings is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "RUSTC-RUNS") || !strings.Contains(out, `"/home/alice/work" = "nightly"`) {
		t.Errorf("inside, want rustup's proxy to run the toolchain its settings name:\n%s", out)
	}
}
