package audit

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScanUntrackedConfigsToolsRun: the configurations a tool reads
// where it runs and runs Ruby or commands from, which git shows only as
// new files, are found when the session made them, at the top or below:
// RuboCop's .rubocop.yml and RSpec's .rspec (read through ERB; their
// require), golangci-lint's .golangci.* (a custom linter's .so),
// nodemon.json (its exec and events) and cargo's build.rs, which
// rust-analyzer runs as the editor opens the folder. What only shares a
// part of their names is not.
func TestScanUntrackedConfigsToolsRun(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, name := range []string{".rubocop.yml", ".rspec", ".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json", "nodemon.json", "build.rs", "conftest.py", ".envrc"} {
		for _, dir := range []string{"", "crates/app"} {
			p := filepath.Join(root, dir, name)
			write(t, p)
			want = append(want, p)
		}
	}
	for _, p := range []string{"docs/rubocop.md", ".rspec.md", "golangci.txt", "src/build.rs.txt", "nodemon.md"} {
		write(t, filepath.Join(root, p))
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// TestScanNewCrateManifest: a Cargo.toml git does not track that has
// cargo run code the manifest chooses as rust-analyzer loads the folder
// is found: a build script by any path, a proc macro, a dependency from a
// git repository or another registry (a target's and a workspace's
// too), a [patch], or one that is no TOML. A workspace takes the new
// folder its members' glob matches for one of its crates. One with
// crates.io's versions and paths alone is not, nor a tracked one
// rewritten, which git shows.
func TestScanNewCrateManifest(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"Cargo.toml":            "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/app/Cargo.toml": "[package]\nname = \"app\"\n",
	}, map[string]string{
		"crates/evil/Cargo.toml":   "[package]\nname = \"evil\"\nbuild = \"b.txt\"\n",
		"crates/macro/Cargo.toml":  "[package]\nname = \"m\"\n[lib]\nproc-macro = true\npath = \"l.txt\"\n",
		"crates/fetch/Cargo.toml":  "[package]\nname = \"f\"\n[dependencies]\nx = { git = \"https://example.com/x\" }\n",
		"crates/target/Cargo.toml": "[package]\nname = \"t\"\n[target.'cfg(unix)'.build-dependencies]\nx = { version = \"1\", registry = \"mine\" }\n",
		"crates/patch/Cargo.toml":  "[package]\nname = \"p\"\n[patch.crates-io]\nx = { path = \"../x\" }\n",
		"tools/Cargo.toml":         "[workspace.dependencies]\nx = { git = \"https://example.com/x\" }\n",
		"crates/broken/Cargo.toml": "[package\n",
	}, map[string]string{
		"crates/plain/Cargo.toml": "[package]\nname = \"plain\"\nbuild = false\n[lib]\nproc-macro = false\n[dependencies]\nserde = \"1\"\napp = { path = \"../app\" }\nlog = { version = \"0.4\", features = [\"std\"] }\n",
		"crates/app/Cargo.toml":   "[package]\nname = \"app\"\nbuild = \"b.txt\"\n",
	})
}

// TestScanTestRunnerConfigs: the test runners' <tool>.conf.<ext>, which
// each imports where it starts (karma.conf.js, wdio.conf.ts), and
// Ansible's ansible.cfg (its vault_password_file, which it runs, its
// inventory scripts and plugins), made untracked, are found; a server's
// nginx.conf, a conf.js and an app.conf.txt are not.
func TestScanTestRunnerConfigs(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, name := range []string{"karma.conf.js", "wdio.conf.ts", "nightwatch.conf.cjs", "codecept.conf.mjs", "protractor.conf.js", "ansible.cfg"} {
		for _, dir := range []string{"", "web"} {
			p := filepath.Join(root, dir, name)
			write(t, p)
			want = append(want, p)
		}
	}
	for _, p := range []string{"nginx.conf", "web/conf.js", "app.conf.txt", ".conf.js", "ansible.cfg.example"} {
		write(t, filepath.Join(root, p))
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// TestScanBuildLaunchersOwn: what a build tool's launcher runs or loads
// at every command, made untracked, is found: Pants' .pants.bootstrap,
// sourced as shell, its pants.toml and .pants.rc, Buck's .buckconfig and
// .buckconfig.local, Hatch's hatch.toml, at the top or below; what only
// shares a part of their names is not.
func TestScanBuildLaunchersOwn(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, name := range []string{".pants.bootstrap", "pants.toml", ".pants.rc", ".buckconfig", ".buckconfig.local", "hatch.toml"} {
		for _, dir := range []string{"", "sub"} {
			p := filepath.Join(root, dir, name)
			write(t, p)
			want = append(want, p)
		}
	}
	for _, rel := range []string{"pants.toml.md", "docs/buckconfig.txt", "hatch.md"} {
		write(t, filepath.Join(root, rel))
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
