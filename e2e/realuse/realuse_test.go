package realuse

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
)

// TestSandboxToolchains: the user's toolchains on PATH under $HOME run
// inside, laid out as their installers lay them out (nvm with a node-based
// Claude Code from npm, rustup's proxies, pyenv's shims, a pipx venv in
// ~/.local/bin), while their directories stay unwritable, their caches and
// credentials hidden, and the host's files byte-identical.
func TestSandboxToolchains(t *testing.T) {
	h := harness.NewHost(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the nvm layout needs a node binary")
	}
	api := harness.StartFakeAPI(t, "FAKE-REPLY-from-nvm-claude")
	home := h.Home
	path := func(p string) string { return filepath.Join(home, p) }

	// nvm: node in a version directory, Claude Code 2.1.97 (node-based)
	// installed into it by npm, as `npm install -g` under nvm does.
	nvm := path(".nvm/versions/node/v20.0.0")
	os.MkdirAll(filepath.Join(nvm, "bin"), 0o755)
	h.CopyFile(node, filepath.Join(nvm, "bin", "node"), 0o755)
	npm := exec.Command("npm", "install", "-g", "--prefix", nvm, "@anthropic-ai/claude-code@2.1.97")
	npm.Env = append(os.Environ(), "npm_config_update_notifier=false")
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}

	// rustup: the proxies in ~/.cargo/bin pick the toolchain from
	// ~/.rustup/settings.toml. The real rustup binary when there is one,
	// else a stand-in proxy that reads the same file.
	tc := path(".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/rustc")
	h.Write(tc, "#!/bin/sh\necho rustc 1.80.0-toolchain\n")
	os.Chmod(tc, 0o755)
	h.Write(path(".rustup/settings.toml"), "version = \"12\"\ndefault_toolchain = \"stable-x86_64-unknown-linux-gnu\"\nprofile = \"default\"\n")
	os.MkdirAll(path(".cargo/bin"), 0o755)
	if rustup, err := exec.LookPath("rustup"); err == nil {
		h.CopyFile(rustup, path(".cargo/bin/rustup"), 0o755)
		os.Symlink("rustup", path(".cargo/bin/rustc"))
	} else {
		h.Write(path(".cargo/bin/rustc"), "#!/bin/sh\ntc=$(sed -n 's/^default_toolchain = \"\\(.*\\)\"/\\1/p' \"$HOME/.rustup/settings.toml\")\nexec \"$HOME/.rustup/toolchains/$tc/bin/rustc\" \"$@\"\n")
		os.Chmod(path(".cargo/bin/rustc"), 0o755)
	}
	h.Write(path(".cargo/credentials.toml"), "[registry]\ntoken = \"cio-SECRET\"\n")
	h.Write(path(".cargo/registry/cache/crate.crate"), "cached\n")

	// pyenv: a shim as `pyenv rehash` writes it, execing pyenv's libexec,
	// which picks the version from ~/.pyenv/version.
	h.Write(path(".pyenv/shims/python"), `#!/usr/bin/env bash
set -e
program="${0##*/}"
export PYENV_ROOT="`+path(".pyenv")+`"
exec "`+path(".pyenv/libexec/pyenv")+`" exec "$program" "$@"
`)
	h.Write(path(".pyenv/libexec/pyenv"), "#!/usr/bin/env bash\nshift\nprogram=$1; shift\nexec \"$PYENV_ROOT/versions/$(cat \"$PYENV_ROOT/version\")/bin/$program\" \"$@\"\n")
	h.Write(path(".pyenv/version"), "3.12.1\n")
	h.Write(path(".pyenv/versions/3.12.1/bin/python"), "#!/bin/sh\nif [ -n \"$1\" ]; then exec /bin/sh \"$@\"; fi\necho Python 3.12.1\n")
	for _, f := range []string{".pyenv/shims/python", ".pyenv/libexec/pyenv", ".pyenv/versions/3.12.1/bin/python"} {
		os.Chmod(path(f), 0o755)
	}

	// pipx: ~/.local/bin/black links into its venv, whose #! names the
	// venv's python, a link to pyenv's.
	venv := path(".local/share/pipx/venvs/black")
	h.Write(filepath.Join(venv, "bin", "black"), "#!"+filepath.Join(venv, "bin", "python")+"\necho black 24.1\n")
	os.Chmod(filepath.Join(venv, "bin", "black"), 0o755)
	os.Symlink(path(".pyenv/versions/3.12.1/bin/python"), filepath.Join(venv, "bin", "python"))
	os.MkdirAll(path(".local/bin"), 0o755)
	os.Symlink("../share/pipx/venvs/black/bin/black", path(".local/bin/black"))
	h.Write(path(".local/share/other-app/data"), "not a toolchain\n")

	// Secrets around and inside what claudebox mounts itself.
	h.Write(path(".npmrc"), "//registry.npmjs.org/:_authToken=npm_SECRET\n")
	h.Write(path(".config/git/config"), "[user]\n\tname = Alice\n")
	h.Write(path(".config/git/credentials"), "https://alice:ghp_SECRET@github.com\n")

	proj := path("code/app")
	h.GitRepo(proj)
	h.Onboarded("sk-ant-test-key-toolchains", proj)
	h.Chown()
	var toolDirs []string
	for _, d := range []string{".nvm", ".cargo", ".rustup", ".pyenv", ".local", ".config", ".npmrc"} {
		toolDirs = append(toolDirs, path(d))
	}
	before := harness.Snapshots(toolDirs)
	pathEnv := "PATH=" + strings.Join([]string{filepath.Join(nvm, "bin"), path(".cargo/bin"), path(".pyenv/shims"), path(".local/bin"), h.Bin, "/usr/bin", "/bin"}, ":")

	out := h.Inside(proj, []string{pathEnv}, `
		node -e 'console.log("node-" + (40 + 2))'
		claude --version
		rustc --version
		python
		black
		for d in `+filepath.Join(nvm, "bin")+` `+filepath.Dir(tc)+` ~/.cargo/bin ~/.pyenv/versions/3.12.1/bin ~/.local/bin `+filepath.Join(venv, "bin")+`; do
			touch "$d/planted" 2>/dev/null && echo "WROTE $d"
		done
		echo evil > ~/.pyenv/shims/python 2>/dev/null && echo "WROTE shim"
		for f in ~/.cargo/credentials.toml ~/.npmrc ~/.config/git/credentials ~/.cargo/registry/cache/crate.crate ~/.local/share/other-app; do
			test -e "$f" && echo "VISIBLE $f"
		done
		cat ~/.config/git/config
		true
	`)
	for _, want := range []string{"node-42", "2.1.97", "rustc 1.80.0-toolchain", "Python 3.12.1", "black 24.1", `name = "Alice"`} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"WROTE", "VISIBLE"} {
		if strings.Contains(out, bad) {
			t.Errorf("inside:\n%s", out)
		}
	}
	// The node-based Claude Code under nvm is the claude claudebox runs,
	// and it answers.
	if got := h.Run(proj, append(api.Env("sk-ant-test-key-toolchains"), pathEnv), "claudebox", "-p", "hello"); !strings.Contains(got, "FAKE-REPLY-from-nvm-claude") {
		t.Errorf("claude 2.1.97 from nvm printed:\n%s", got)
	}
	dry := h.Run(proj, []string{pathEnv, "ANTHROPIC_API_KEY=sk-ant-test"}, "claudebox", "--dry-run")
	for _, want := range []string{"# " + nvm + ": the toolchain of " + nvm + "/bin, on your PATH", "# " + path(".rustup/toolchains") + ": what ", "# " + venv + ": what "} {
		if !strings.Contains(dry, want) {
			t.Errorf("--dry-run lacks %q:\n%s", want, dry)
		}
	}
	harness.CompareSnapshots(t, before)
}

// TestSandboxBindThroughPlantedLink: a [project] bind whose source is in
// the project works while it is a directory; once the agent replaces it
// with a link to ~/.ssh, the next launch refuses with one line and a hint
// instead of following it.
func TestSandboxBindThroughPlantedLink(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "fixtures", "a.json"), "{}\n")
	h.Write(filepath.Join(h.Home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "[project.\"~/code/app\"]\nro-bind = [\"fixtures:/opt/fixtures\"]\n")
	// --move-aside=false: the exit would move the new link aside when the
	// session ends before its snapshot; kept, the next launch meets it.
	if out := h.Run(proj, nil, "claudebox", "--move-aside=false", "--shell", "-c", "cat /opt/fixtures/a.json; rm -rf fixtures; ln -s ~/.ssh fixtures"); !strings.Contains(out, "{}") {
		t.Fatalf("the bind did not show the fixtures: %q", out)
	}
	harness.NoPlaceholders(t, proj)
	var stdout, stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "cat /opt/fixtures/id_ed25519")
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if err == nil || strings.Contains(stdout.String(), "PRIVATE KEY") {
		t.Fatalf("the launch followed the planted link: %v\n%s", err, stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], filepath.Join(proj, "fixtures")+" is a symlink where the sandbox can write") || !strings.HasPrefix(lines[1], "hint: ") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestSandboxHomeThroughSymlink: with $HOME reached through a link (as
// Fedora Atomic's /home -> var/home), the real claude finds its login and
// settings, answers, and keeps its transcript in the instance; inside,
// $HOME is the real path and the path as set works too.
func TestSandboxHomeThroughSymlink(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-linked-home")
	link := filepath.Join(h.Base, "linkhome")
	if err := os.Symlink("home", link); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	asSet := filepath.Join(link, "alice")
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Onboarded("sk-ant-test-key-linked-home", proj)
	env := append(api.Env("sk-ant-test-key-linked-home"), "HOME="+asSet)
	out := h.Run(proj, env, "claudebox", "-p", "hello")
	if !strings.Contains(out, "FAKE-REPLY-linked-home") {
		t.Fatalf("claude -p printed:\n%s", out)
	}
	if transcripts, _ := filepath.Glob(filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "*", "*.jsonl")); len(transcripts) == 0 {
		t.Error("no transcript in the project's instance")
	}
	if out := h.Inside(proj, []string{"HOME=" + asSet}, `echo "HOME=$HOME"; test -d `+asSet+`/.claude && echo AS-SET-WORKS`); !strings.Contains(out, "HOME="+h.Home+"\n") || !strings.Contains(out, "AS-SET-WORKS") {
		t.Errorf("inside:\n%s", out)
	}
}
