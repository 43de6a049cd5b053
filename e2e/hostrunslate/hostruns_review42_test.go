package hostrunslate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview42NewCrateBuildScripts: rust-analyzer checks every
// crate of the folder as the editor opens it (cargo check, build scripts
// and proc macros built and run), before git status is read, and git
// shows a new crate only as an untracked folder. The workspace's glob
// (crates/*) took the session's crates/evil for one of its crates, whose
// build.rs, found by its name, ran at the host's cargo check; and an
// xtask folder's manifest, beside the workspace, named b.txt as its
// build script, no file there being code by its name. Host-side proof:
// the host's cargo check, in the workspace and in xtask/, runs nothing
// planted. (cargo is the test process's own, as in
// TestReplayReview40IgnoredWorkspaceCrate.)
func TestReplayReview42NewCrateBuildScripts(t *testing.T) {
	cargo := harness.RequireTool(t, "cargo", "https://rustup.rs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "target/\n")
	h.Write(filepath.Join(proj, "Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"xtask\"]\nresolver = \"2\"\n")
	h.Write(filepath.Join(proj, "crates", "app", "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	h.Write(filepath.Join(proj, "crates", "app", "src", "main.rs"), "fn main() {}\n")
	harness.CommitAll(h, proj, "workspace")
	script := `fn main() { std::fs::write("` + h.Marker() + `", "").unwrap(); }`
	out := h.Plant(proj, "new crates' build scripts", `mkdir -p crates/evil/src xtask
		printf '[package]\nname = "evil"\nversion = "0.1.0"\nedition = "2021"\n' > crates/evil/Cargo.toml
		: > crates/evil/src/lib.rs
		echo '`+script+`' > crates/evil/build.rs
		printf '[package]\nname = "xtask"\nversion = "0.1.0"\nedition = "2021"\nbuild = "b.txt"\n[lib]\npath = "l.txt"\n' > xtask/Cargo.toml
		echo '`+script+`' > xtask/b.txt
		: > xtask/l.txt`)
	for _, dir := range []string{proj, filepath.Join(proj, "xtask")} {
		c := exec.Command(cargo, "check", "--offline")
		c.Dir = dir
		c.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(h.Base, "target"))
		ran, _ := c.CombinedOutput()
		if _, err := os.Lstat(h.Marker()); err == nil {
			t.Errorf("the host's cargo check in %s ran the build script the session planted:\n%s\n%s", dir, out, ran)
			os.Remove(h.Marker())
		}
	}
}

// TestReplayReview42UntrackedToolConfigs: the configurations a tool reads
// where it starts and runs code or commands from, which git shows only
// as new files that look like settings: RuboCop's .rubocop.yml and
// RSpec's .rspec (read through ERB), golangci-lint's .golangci.yml (a
// custom linter's .so), nodemon.json (its exec), Ansible's ansible.cfg
// (its vault_password_file, run), Karma's karma.conf.js (imported),
// Pants' .pants.bootstrap (sourced) and Hatch's hatch.toml (its
// environments' commands). The session wrote each at the top of the
// project, and each stayed where its tool reads it. None of these tools
// is installed here: the host-side proof is that none of what the
// session wrote is where the host's tool reads it.
func TestReplayReview42UntrackedToolConfigs(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "README.md"), "app\n")
	harness.CommitAll(h, proj, "app")
	touch := "touch " + h.Marker()
	planted := []string{".rubocop.yml", ".rspec", ".golangci.yml", "nodemon.json", "ansible.cfg", "karma.conf.js", ".pants.bootstrap", "hatch.toml"}
	out := h.Plant(proj, "tools' configurations", `
		echo 'AllCops: { TargetRubyVersion: <%= system("`+touch+`") && 3.2 %> }' > .rubocop.yml
		echo '--require <%= system("`+touch+`") %>' > .rspec
		printf 'linters-settings:\n  custom:\n    x:\n      path: ./x.so\n' > .golangci.yml
		echo '{"exec": "`+touch+`"}' > nodemon.json
		printf '[defaults]\nvault_password_file = ./.pants.bootstrap\n' > ansible.cfg
		echo 'require("child_process").execSync("`+touch+`")' > karma.conf.js
		echo '`+touch+`' > .pants.bootstrap
		printf '[envs.default]\npre-install-commands = ["`+touch+`"]\n' > hatch.toml`)
	for _, p := range planted {
		if _, err := os.Lstat(filepath.Join(proj, p)); err == nil {
			t.Errorf("%s, which the session wrote, is where the host's tool reads it:\n%s", p, out)
		}
	}
}
