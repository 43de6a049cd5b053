package hostobeys

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview14ToolchainFiles: the exit audit moved aside the tool
// files its registry names (.npmrc, bunfig.toml, .tool-versions, …), and
// not those of Rust's tools or what a project's .envrc sources. The
// session writes, beside a shell script of its own: a rust-toolchain.toml
// whose toolchain is a path (rustup 1.29 runs that directory's bin/cargo
// for the host's every cargo command there, cargo --version included, and
// rust-analyzer runs cargo when the editor opens the project), the legacy
// rust-toolchain, a .cargo/config.toml naming a rustc-wrapper (which the
// host's cargo build and cargo check run), in a package below the top
// too, and the .envrc.local the project's .envrc sources (direnv's
// source_env_if_exists, run at the host's next cd). Host-side proof: none
// of them stands at its path after the session (where rustup is installed,
// the host's cargo --version runs nothing the session wrote), and the
// host's .envrc, evaluated as direnv does, runs nothing either.
func TestReplayReview14ToolchainFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".envrc"), "source_env_if_exists .envrc.local\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".envrc.local\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".envrc", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "direnv")
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		mkdir -p .tc/bin crates/core/.cargo
		printf '#!/bin/sh\ntouch `+marker+`\n' > .tc/bin/cargo
		cp .tc/bin/cargo .tc/bin/rustc
		cp .tc/bin/cargo .tc/wrap
		chmod +x .tc/bin/* .tc/wrap
		printf '[toolchain]\npath = "%s/.tc"\n' "$PWD" > rust-toolchain.toml
		printf '%s/.tc\n' "$PWD" > rust-toolchain
		mkdir .cargo
		printf '[build]\nrustc-wrapper = "%s/.tc/wrap"\n' "$PWD" > .cargo/config.toml
		cp .cargo/config.toml crates/core/.cargo/config.toml
		echo 'touch `+marker+`' > .envrc.local
		test -z "$(git status --porcelain --ignored=no -- .envrc.local)"`)
	for _, name := range []string{"rust-toolchain.toml", "rust-toolchain", ".cargo/config.toml", "crates/core/.cargo/config.toml", ".envrc.local"} {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's tools read it:\n%s", name, out)
		}
	}
	if cargo, err := exec.LookPath("cargo"); err == nil {
		// The test's own user: rustup is installed for it, not for the
		// unprivileged one.
		c := exec.Command(cargo, "--version")
		c.Dir = proj
		c.Run()
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the host's cargo --version ran what the session planted:\n%s", out)
			os.Remove(marker)
		}
	}
	// direnv evaluates the .envrc in bash with its standard library.
	h.Command(proj, nil, "bash", "-c", `source_env_if_exists() { if [ -f "$1" ]; then . "./$1"; fi; }; . ./.envrc`).Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's .envrc sourced what the session planted:\n%s", out)
	}
	if !strings.Contains(out, "rust-toolchain.toml") {
		t.Errorf("the exit does not name the session's rust-toolchain.toml:\n%s", out)
	}
}

// TestReplayReview14DotenvWithoutGemini: the exit audit judged a .env only
// when gemini was on the host's PATH, but many of the host's tools load
// the .env where they start, which git ignores in nearly every project:
// direnv's dotenv (in an .envrc the user allowed, which direnv does not
// ask about again for a changed .env), docker compose (its COMPOSE_FILE
// picks the file whose containers it starts), pipenv and bun. The
// session, on a host without gemini, writes a .env setting BASH_ENV to a
// script of its own. Host-side proof: the host's .envrc, evaluated as
// direnv's dotenv does, sets nothing that runs the script in the host's
// next bash; the session's .env waits in claudebox's state, named with the
// key that made it a finding. A .env of an application's own settings
// stays.
func TestReplayReview14DotenvWithoutGemini(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".envrc"), "dotenv_if_exists\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".env\n.cache/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".envrc", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "direnv")
	// A host without gemini: every program of /usr/bin but gemini.
	nogemini := filepath.Join(h.Base, "nogemini")
	harness.Must(t, os.Mkdir(nogemini, 0o755))
	entries, err := os.ReadDir("/usr/bin")
	harness.Must(t, err)
	for _, e := range entries {
		if e.Name() != "gemini" {
			harness.Must(t, os.Symlink(filepath.Join("/usr/bin", e.Name()), filepath.Join(nogemini, e.Name())))
		}
	}
	path := []string{"PATH=" + h.Bin + ":" + nogemini}
	marker := h.Marker()
	var stderr strings.Builder
	c := h.Command(proj, path, "claudebox", "--shell", "-c", `set -e
		PATH=/usr/bin:/bin
		mkdir .cache web
		echo 'touch `+marker+`' > .cache/x.sh
		printf 'DATABASE_URL=postgres://localhost/app\nBASH_ENV=%s/.cache/x.sh\n' "$PWD" > .env
		printf 'PORT=3000\n' > web/.env
		test -z "$(git status --porcelain)"`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	out := stderr.String()
	h.Command(proj, nil, "bash", "-c", `dotenv_if_exists() { if [ -f .env ]; then set -a; . ./.env; set +a; fi; }; . ./.envrc; bash -c true`).Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's bash ran the script the session's .env names:\n%s", out)
	}
	if !strings.Contains(out, "BASH_ENV") || !strings.Contains(out, "to put it back: mv -n") {
		t.Errorf("the exit does not name the .env and its key:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(proj, "web", ".env")); err != nil || string(b) != "PORT=3000\n" {
		t.Errorf("a .env of an application's settings did not stay: %q %v\n%s", b, err, out)
	}
}

// TestReplayReview14HookLinkedIntoWorkTree: .git/hooks is read-only
// inside, but a hook there is often a link to a script the project keeps
// (ln -s ../../scripts/hooks/pre-commit .git/hooks/pre-commit), which
// lies in the writable work tree: the session rewrote the script, and the
// host's next git commit ran it. Host-side proof: after the session, the
// host's git commit runs nothing the session wrote.
func TestReplayReview14HookLinkedIntoWorkTree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "scripts", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	harness.Must(t, os.Chmod(filepath.Join(proj, "scripts", "hooks", "pre-commit"), 0o755))
	h.Write(filepath.Join(proj, "tools", "post-commit"), "#!/bin/sh\nexit 0\n")
	harness.Must(t, os.Chmod(filepath.Join(proj, "tools", "post-commit"), 0o755))
	h.Write(filepath.Join(proj, ".gitignore"), "tools/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore", "scripts")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "ln", "-s", "../../scripts/hooks/pre-commit", ".git/hooks/pre-commit")
	h.Run(proj, nil, "ln", "-s", proj+"/tools/post-commit", ".git/hooks/post-commit")
	marker := h.Marker()
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		printf '#!/bin/sh\ntouch `+marker+`\n' > scripts/hooks/pre-commit
		printf '#!/bin/sh\ntouch `+marker+`\n' > tools/post-commit
		true`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	h.Write(filepath.Join(proj, "new"), "x\n")
	h.Run(proj, nil, "git", "add", "new")
	h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "new").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit ran a hook the session wrote through the hooks' links:\n%s", stderr.String())
	}
}

// TestReplayReview14ConfigLinkedIntoWorkTree: the directories the host's
// editors and agents obey (.vscode, .claude, …) are read-only inside, but
// a file or directory in one is often a link to what the project keeps
// elsewhere (a monorepo's shared config/vscode/tasks.json, whose tasks
// VS Code runs when it opens the folder; a .claude/hooks linked to
// tools/claude-hooks, whose scripts the host's Claude Code runs as its
// hooks): the session rewrote them through the work tree. Host-side
// proof: after the session, what the links lead to is what it was.
func TestReplayReview14ConfigLinkedIntoWorkTree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "config", "vscode", "tasks.json"), "{}\n")
	h.Write(filepath.Join(proj, "tools", "claude-hooks", "fmt.sh"), "#!/bin/sh\n")
	h.Write(filepath.Join(proj, ".claude", "settings.json"), "{}\n")
	harness.Must(t, os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755))
	harness.Must(t, os.Symlink("../config/vscode/tasks.json", filepath.Join(proj, ".vscode", "tasks.json")))
	harness.Must(t, os.Symlink("../tools/claude-hooks", filepath.Join(proj, ".claude", "hooks")))
	h.Chown()
	h.GitRepo(proj)
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		echo '{"tasks":[{"label":"x","command":"touch pwned","runOptions":{"runOn":"folderOpen"}}]}' > config/vscode/tasks.json
		echo 'touch pwned' >> tools/claude-hooks/fmt.sh
		echo 'touch pwned' > tools/claude-hooks/new.sh
		true`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	for name, want := range map[string]string{".vscode/tasks.json": "{}\n", ".claude/hooks/fmt.sh": "#!/bin/sh\n"} {
		if b, _ := os.ReadFile(filepath.Join(proj, name)); string(b) != want {
			t.Errorf("the host's %s is the session's: %q\n%s", name, b, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "hooks", "new.sh")); err == nil {
		t.Errorf("the session added a script to the host's .claude/hooks:\n%s", stderr.String())
	}
}

// TestReplayReview14DotenvIncludedByMake: the exit audit let a .env stay
// that set only an application's own settings by their names, read as
// dotenv reads it; but a project's makefile includes its .env (-include
// .env, export), and scripts source it (set -a; . ./.env): the session
// writes DATABASE_URL=$(shell …), which make runs when it exports the
// variable, and PORT=3000; …, which the shell runs. Host-side proof: the
// host's make, and a shell that sources the .env, run nothing the session
// wrote; the exit names the line.
func TestReplayReview14DotenvIncludedByMake(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "Makefile"), "-include .env\nexport\ntest:\n\t@echo ok\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".env\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "Makefile", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "make")
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		printf 'PORT=3000\nDATABASE_URL=$(shell touch `+marker+`)\n' > .env
		mkdir api
		printf 'PORT=3000; touch `+marker+`\n' > api/.env
		test -z "$(git status --porcelain)"`)
	h.Command(proj, nil, "make", "-s", "test").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's make ran what the session's .env holds:\n%s", out)
		os.Remove(marker)
	}
	h.Command(filepath.Join(proj, "api"), nil, "bash", "-c", "set -a; . ./.env").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's shell ran what the session's api/.env holds:\n%s", out)
	}
	if !strings.Contains(out, "runs its line 2") {
		t.Errorf("the exit does not name the .env's line:\n%s", out)
	}
}

// TestReplayReview14MiseConfigPlaces: the registry named mise's
// mise.toml, .mise.toml, their .local variants and .mise/, but mise
// reads its configuration in more places of a project: .config/mise.toml,
// .config/mise/config.toml and its conf.d/*.toml, mise/config.toml, and
// mise.<env>.toml for the MISE_ENV the user works in; a [hooks] enter
// there runs at the host's next cd into the project (where the user's
// trusted_config_paths trust the folder, or mise trust was given to the
// path). Host-side proof: none of them stands at its path after the
// session.
func TestReplayReview14MiseConfigPlaces(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	names := []string{".config/mise.toml", ".config/mise/config.toml", ".config/mise/conf.d/x.toml", "mise/config.toml", "mise.development.toml", ".mise.staging.toml", "svc/mise.local.toml"}
	out := h.InsideStderr(proj, `set -e
		for f in `+strings.Join(names, " ")+`; do
			mkdir -p "$(dirname "$f")"
			printf '[hooks]\nenter = "touch pwned"\n' > "$f"
		done`)
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's mise reads it:\n%s", name, out)
		}
	}
}

// TestReplayReview14MakeIncludesIgnored: the exit audit judged a makefile
// the session changed that git does not track, but not what a makefile
// includes: a project's Makefile reads the developer's own settings from a
// file git ignores (-include local.mk), which the session writes with a
// $(shell …) that make runs as it reads it. Host-side proof: the host's
// make runs nothing the session wrote. A tracked rules.mk the session
// edits stays: git shows the change.
func TestReplayReview14MakeIncludesIgnored(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "Makefile"), "-include local.mk mk/*.mk\ntest:\n\t@echo ok\n")
	h.Write(filepath.Join(proj, ".gitignore"), "local.mk\nmk/\n")
	h.Write(filepath.Join(proj, "rules.mk"), "CFLAGS = -O2\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", "Makefile", ".gitignore", "rules.mk")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "make")
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		printf 'X := $(shell touch `+marker+`)\n' > local.mk
		mkdir mk
		cp local.mk mk/dev.mk
		test -z "$(git status --porcelain)"
		echo 'CFLAGS += -g' >> rules.mk`)
	if b, _ := os.ReadFile(filepath.Join(proj, "rules.mk")); !strings.Contains(string(b), "-g") {
		t.Errorf("the tracked rules.mk the session edited did not stay:\n%s", out)
	}
	for _, name := range []string{"local.mk", "mk/dev.mk"} {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's make includes it:\n%s", name, out)
		}
	}
	h.Command(proj, nil, "make", "-s", "test").Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's make ran what the session's included makefile holds:\n%s", out)
	}
}

// TestReplayReview14EditorWorkspaceFiles: the registry named .vscode but
// not a VS Code workspace file, which VS Code offers to open when it finds
// one in the folder, and whose tasks run when it opens (runOptions.runOn
// folderOpen) in a trusted folder; nor a Sublime Text project, whose build
// systems run commands. Host-side proof: neither stands in the project
// after the session.
func TestReplayReview14EditorWorkspaceFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	names := []string{"app.code-workspace", "web/web.code-workspace", "app.sublime-project"}
	out := h.InsideStderr(proj, `set -e
		mkdir web
		for f in `+strings.Join(names, " ")+`; do
			echo '{"folders":[{"path":"."}],"tasks":{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"touch pwned","runOptions":{"runOn":"folderOpen"}}]}}' > "$f"
		done`)
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's editor opens it:\n%s", name, out)
		}
	}
}

// TestReplayReview14VirtualenvPipConf: the exit judged a virtualenv's
// bin/, not the pip.conf pip reads from the active virtualenv's top
// (its "site" configuration), which git ignores with the rest of .venv:
// the session points index-url at a server of its choosing, and the
// host's next pip install there installs, and runs the build of, what
// that server serves. Likewise uv.toml for uv. Host-side proof: the
// host's pip in the virtualenv reads no configuration the session wrote.
func TestReplayReview14VirtualenvPipConf(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatal("python3 is not installed (.ci/run installs it, with python3-venv)")
	}
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "/usr/bin/python3", "-m", "venv", ".venv")
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "venv")
	out := h.InsideStderr(proj, `set -e
		printf '[global]\nindex-url = http://127.0.0.1:9/simple\n' > .venv/pip.conf
		printf 'index-url = "http://127.0.0.1:9/simple"\n' > uv.toml
		git add uv.toml 2>/dev/null || true
		test -z "$(git status --porcelain -- .venv)"`)
	if got := h.Run(proj, nil, ".venv/bin/pip", "config", "list"); strings.Contains(got, "127.0.0.1:9") {
		t.Errorf("the host's pip reads the session's index: %s\n%s", got, out)
	}
	if _, err := os.Lstat(filepath.Join(proj, "uv.toml")); err == nil {
		t.Errorf("the session's uv.toml stands where the host's uv reads it:\n%s", out)
	}
}
