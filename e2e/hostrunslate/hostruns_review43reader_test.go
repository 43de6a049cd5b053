package hostrunslate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/project"
)

// TestReplayReview43NewCratePathOutside: a new crate the workspace's glob
// (crates/*) takes for one of its crates is moved aside where its
// manifest has cargo run code, but a path dependency passed, to be judged
// where it lies, as if it lay in the project. The session's crates/app2
// named a crate in the project's own instance by its host path or a
// relative one out of the project (the sandbox writes the instance as its
// ~/.claude/projects, and the exit audit never walks it), and a
// build.rs there ran at the host's cargo check (what rust-analyzer runs
// as the editor opens the folder), git status showing one new folder of
// one manifest and an empty lib.rs. A link out of the project, which the
// manifest names or the glob matches, was already moved aside (kept here
// beside them). Host-side proof: the host's cargo check runs nothing
// planted.
func TestReplayReview43NewCratePathOutside(t *testing.T) {
	cargo := harness.RequireTool(t, "cargo", "https://rustup.rs")
	for _, tc := range []struct{ name, plant string }{
		{"by its path", `printf "$manifest" "$outside" > crates/app2/Cargo.toml`},
		{"by a path out", `printf "$manifest" "../../../.claudebox/projects/${outside#*/.claudebox/projects/}" > crates/app2/Cargo.toml`},
		{"through a link", `ln -s "$outside" lnk && printf "$manifest" ../../lnk > crates/app2/Cargo.toml`},
		{"a link the glob matches", `rm -r crates/app2 && ln -s "$outside" crates/dep`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "target/\n")
			h.Write(filepath.Join(proj, "Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n")
			h.Write(filepath.Join(proj, "crates", "app", "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
			h.Write(filepath.Join(proj, "crates", "app", "src", "main.rs"), "fn main() {}\n")
			harness.CommitAll(h, proj, "workspace")
			outside := filepath.Join(h.Home, ".claudebox", "projects", project.Hash(proj), "dep")
			script := `fn main() { std::fs::write("` + h.Marker() + `", "").unwrap(); }`
			out := h.Plant(proj, "a crate outside the project", `outside='`+outside+`'
				manifest='[package]\nname = "app2"\nversion = "0.1.0"\nedition = "2021"\n[dependencies]\ndep = { path = "%s" }\n'
				mkdir -p ~/.claude/projects/dep/src crates/app2/src
				printf '[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n' > ~/.claude/projects/dep/Cargo.toml
				: > ~/.claude/projects/dep/src/lib.rs
				echo '`+script+`' > ~/.claude/projects/dep/build.rs
				: > crates/app2/src/lib.rs
				`+tc.plant)
			c := exec.Command(cargo, "check", "--offline")
			c.Dir = proj
			c.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(h.Base, "target"))
			ran, _ := c.CombinedOutput()
			if _, err := os.Lstat(h.Marker()); err == nil {
				t.Errorf("the host's cargo check ran the build script of a crate outside the project:\n%s\n%s", out, ran)
			}
		})
	}
}
