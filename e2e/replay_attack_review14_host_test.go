package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "proj")
	h.write(filepath.Join(proj, ".envrc"), "source_env_if_exists .envrc.local\n")
	h.write(filepath.Join(proj, ".gitignore"), ".envrc.local\n")
	h.gitRepo(proj)
	h.run(proj, nil, "git", "add", ".envrc", ".gitignore")
	h.run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "direnv")
	marker := plantedMarker(h)
	out := runSession(t, h, proj, `set -e
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
	h.command(proj, nil, "bash", "-c", `source_env_if_exists() { if [ -f "$1" ]; then . "./$1"; fi; }; . ./.envrc`).Run()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's .envrc sourced what the session planted:\n%s", out)
	}
	if !strings.Contains(out, "rust-toolchain.toml") {
		t.Errorf("the exit does not name the session's rust-toolchain.toml:\n%s", out)
	}
}
