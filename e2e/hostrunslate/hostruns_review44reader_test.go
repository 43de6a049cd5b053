package hostrunslate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/project"
)

// TestReplayReview44NewMemberPathDependency: a new member of an npm
// workspace (packages/*) is moved aside where its package.json has npm
// run code it chooses, but a path dependency (file:, a path) passed, to
// be judged where it lies, wherever it lay. The session's packages/evil
// named a package in the project's own instance by its host path or a
// relative one out of the project (the sandbox writes the instance as
// its ~/.claude/projects, and the exit audit never walks it), or a
// tarball beside its package.json (npm reads a path ending in .tgz as
// one, unpacks it and runs what it holds; the audit reads no tarball),
// and that package's postinstall ran at the host's npm install, which
// links it into node_modules, git status showing one new folder. A link
// out of the project was already moved aside. Host-side proof: the
// host's npm install runs nothing planted.
func TestReplayReview44NewMemberPathDependency(t *testing.T) {
	npm := harness.RequireTool(t, "npm", "https://nodejs.org")
	for _, tc := range []struct{ name, spec string }{
		{"by its path", `file:$outside`},
		{"by a path out", `../../../.claudebox/projects/${outside#*/.claudebox/projects/}`},
		{"a tarball beside it", `file:dep.tgz`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\npackage-lock.json\n")
			h.Write(filepath.Join(proj, "package.json"), `{"name": "root", "private": true, "workspaces": ["packages/*"]}`+"\n")
			h.Write(filepath.Join(proj, "packages", "app", "package.json"), `{"name": "app", "version": "1.0.0"}`+"\n")
			harness.CommitAll(h, proj, "workspace")
			outside := filepath.Join(h.Home, ".claudebox", "projects", project.Hash(proj), "dep")
			out := h.Plant(proj, "a package outside the project", `outside='`+outside+`'
				mkdir -p ~/.claude/projects/dep packages/evil
				echo '{"name": "dep", "version": "1.0.0", "scripts": {"postinstall": "touch `+h.Marker()+`"}}' > ~/.claude/projects/dep/package.json
				tar -C ~/.claude/projects --transform s/^dep/package/ -czf packages/evil/dep.tgz dep
				echo '{"name": "evil", "version": "1.0.0", "dependencies": {"dep": "'"`+tc.spec+`"'"}}' > packages/evil/package.json`)
			env := []string{"npm_config_cache=" + filepath.Join(h.Base, "npm-cache"), "npm_config_update_notifier=false", "npm_config_registry=http://127.0.0.1:9/"}
			h.RunsNothingPlanted(out, proj, env, npm, "install", "--offline", "--no-audit", "--no-fund")
		})
	}
}

// TestReplayReview44NewMemberTakesDependencysName: npm links a member of
// the workspace in the place of a dependency by its name (its folder's,
// where its package.json names none) whose version range it satisfies,
// fetching nothing: the session's packages/lp, named left-pad, which
// the root's package.json or another member's depends on, had its
// index.js run at the host's npm test as the project's code required
// left-pad, git status showing
// one new folder of a package.json with a name and a version. Host-side
// proof: the host's npm install and npm test run nothing planted.
func TestReplayReview44NewMemberTakesDependencysName(t *testing.T) {
	npm := harness.RequireTool(t, "npm", "https://nodejs.org")
	for _, tc := range []struct{ name, dir, manifest, rootDeps, appDeps string }{
		{"by its name", "lp", `{"name": "left-pad", "version": "1.3.0"}`, `{"left-pad": "^1.3.0"}`, `{}`},
		{"by its folder's", "left-pad", `{"version": "1.3.0"}`, `{"left-pad": "^1.3.0"}`, `{}`},
		{"a member's dependency", "lp", `{"name": "left-pad", "version": "1.3.0"}`, `{}`, `{"left-pad": "^1.3.0"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\npackage-lock.json\n")
			h.Write(filepath.Join(proj, "package.json"), `{"name": "root", "private": true, "workspaces": ["packages/*"], "dependencies": `+tc.rootDeps+`, "scripts": {"test": "node test.js"}}`+"\n")
			h.Write(filepath.Join(proj, "test.js"), "require(\"left-pad\")\n")
			h.Write(filepath.Join(proj, "packages", "app", "package.json"), `{"name": "app", "version": "1.0.0", "dependencies": `+tc.appDeps+`}`+"\n")
			harness.CommitAll(h, proj, "workspace")
			out := h.Plant(proj, "a member named as a dependency", `mkdir -p packages/`+tc.dir+`
				echo '`+tc.manifest+`' > packages/`+tc.dir+`/package.json
				echo 'require("fs").writeFileSync("`+h.Marker()+`", "")' > packages/`+tc.dir+`/index.js`)
			env := []string{"npm_config_cache=" + filepath.Join(h.Base, "npm-cache"), "npm_config_update_notifier=false", "npm_config_registry=http://127.0.0.1:9/"}
			h.RunsNothingPlanted(out, proj, env, npm, "install", "--offline", "--no-audit", "--no-fund")
			h.RunsNothingPlanted(out, proj, env, npm, "test")
		})
	}
}

// TestReplayReview44NewCrateTargetOutside: a new crate the workspace's
// glob (crates/*) takes passes where its manifest runs nothing at a
// check, but a target's path (its lib's, a test's) was not looked at:
// the session's crates/app2 named as its lib, or as a test, a file it
// wrote in the project's own instance (its ~/.claude/projects, which no
// audit walks) by its host path or one out of the project, and its
// #[test] ran at the host's cargo test, git status showing one new
// folder of one manifest and an empty lib.rs. Host-side proof: the
// host's cargo test runs nothing planted.
func TestReplayReview44NewCrateTargetOutside(t *testing.T) {
	cargo := harness.RequireTool(t, "cargo", "https://rustup.rs")
	for _, tc := range []struct{ name, target string }{
		{"its lib by its path", "[lib]\npath = \"%[1]s\"\n"},
		{"a test by a path out", "[[test]]\nname = \"t\"\npath = \"%[2]s\"\n"},
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
			rel := filepath.Join(".claudebox", "projects", project.Hash(proj), "evil.rs")
			manifest := "[package]\nname = \"app2\"\nversion = \"0.1.0\"\nedition = \"2021\"\n" + fmt.Sprintf(tc.target, filepath.Join(h.Home, rel), filepath.Join("..", "..", "..", rel))
			test := `#[test] fn t() { std::fs::write("` + h.Marker() + `", "").unwrap(); }`
			out := h.Plant(proj, "a target outside the project", `mkdir -p crates/app2/src
				echo '`+test+`' > ~/.claude/projects/evil.rs
				printf '%s' '`+manifest+`' > crates/app2/Cargo.toml
				: > crates/app2/src/lib.rs`)
			c := exec.Command(cargo, "test", "--offline")
			c.Dir = proj
			c.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(h.Base, "target"))
			ran, _ := c.CombinedOutput()
			if _, err := os.Lstat(h.Marker()); err == nil {
				t.Errorf("the host's cargo test ran a target outside the project:\n%s\n%s", out, ran)
			}
		})
	}
}
