package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScanNewMemberPathDependency: a package.json git does not track
// whose dependency is a path (file:, link:, portal:, ./x) is found but
// where the path leads to a folder of the project, whose package.json
// the walk judges: one by an absolute path, the home's (~/), one out of
// the project, a tarball beside it (npm unpacks it and runs what it
// holds), a link, a folder not there, each though a folder of the
// project bears its name. A range of ~ is no path.
func TestScanNewMemberPathDependency(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"package.json":              `{"workspaces": ["packages/*"]}`,
		"packages/app/package.json": `{"name": "app"}`,
		"packages/lib/package.json": `{"name": "lib"}`,
	}, map[string]string{
		"packages/abs/package.json":      `{"dependencies": {"x": "file:/home/u/.claudebox/projects/h/dep"}}`,
		"packages/slash/package.json":    `{"dependencies": {"x": "/home/u/.claudebox/projects/h/dep"}}`,
		"packages/home/package.json":     `{"dependencies": {"x": "~/.claudebox/projects/h/dep"}}`,
		"packages/homefile/package.json": `{"dependencies": {"x": "file:~/.claudebox/projects/h/dep"}}`,
		"packages/out/package.json":      `{"dependencies": {"x": "../../../.claudebox/projects/h/dep"}}`,
		"packages/link/package.json":     `{"devDependencies": {"x": "link:../../../dep"}}`,
		"packages/tgz/package.json":      `{"dependencies": {"x": "file:dep.tgz"}}`,
		"packages/tgzdot/package.json":   `{"dependencies": {"x": "./dep.tgz"}}`,
		"packages/none/package.json":     `{"dependencies": {"x": "file:../missing"}}`,
		"packages/override/package.json": `{"overrides": {"y": {"x": "portal:/tmp/x"}}}`,
	}, map[string]string{
		"packages/home/~/.claudebox/projects/h/dep/package.json":     `{"name": "dep"}`,
		"packages/abs/home/u/.claudebox/projects/h/dep/package.json": `{"name": "dep"}`,
		"packages/tgz/dep.tgz":        "",
		"packages/tgzdot/dep.tgz":     "",
		"packages/plain/package.json": `{"dependencies": {"a": "~1.2.3", "b": "file:../lib", "c": "../app", "d": "link:../lib"}}`,
	})
}

// TestScanNewMemberNameTaken: a package.json git does not track whose
// package's name (its folder's, where it has none) is one node finds
// another package by from there is found: a dependency a package.json
// above it or a tracked one beside it names, a package in a node_modules
// above it, a name of no npm shape. One whose name is new passes, and so
// does one a manifest above names by a workspace's version, one another
// new member depends on, or one whose place in node_modules is a link
// to itself, as the session's own npm install makes it.
func TestScanNewMemberNameTaken(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"package.json":                    `{"workspaces": ["packages/*"], "dependencies": {"left-pad": "^1.3.0", "mine": "workspace:*"}, "devDependencies": {"is-odd": "*"}}`,
		"packages/app/package.json":       `{"name": "app", "dependencies": {"is-even": "^1.0.0"}}`,
		"node_modules/chalk/package.json": `{"name": "chalk"}`,
	}, map[string]string{
		"packages/lp/package.json":     `{"name": "left-pad", "version": "1.3.0"}`,
		"packages/is-odd/package.json": `{"version": "1.0.0"}`,
		"packages/c/package.json":      `{"name": "chalk"}`,
		"packages/dots/package.json":   `{"name": "../../x"}`,
		"packages/num/package.json":    `{"name": 5}`,
		"packages/even/package.json":   `{"name": "is-even"}`,
	}, map[string]string{
		"packages/new/package.json":    `{"name": "brand-new"}`,
		"packages/mine/package.json":   `{"name": "mine"}`,
		"packages/scoped/package.json": `{"name": "@me/util"}`,
		"packages/util/package.json":   `{"name": "util"}`,
		"packages/uses/package.json":   `{"dependencies": {"util": "^1.0.0"}}`,
	})
}

// TestScanNewMemberLinkedByOwnInstall: the session's own npm install
// links its new member into node_modules; the member is not found for
// the link, nor is the link.
func TestScanNewMemberLinkedByOwnInstall(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"workspaces": ["packages/*"]}`)
	write(".gitignore", "node_modules/\n")
	gitAdd(t, root)
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	write("packages/own/package.json", `{"name": "own"}`)
	if err := os.MkdirAll(filepath.Join(root, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../packages/own", filepath.Join(root, "node_modules", "own")); err != nil {
		t.Fatal(err)
	}
	if r := Scan(root, since, nil, start, nil); len(r.Found) > 0 {
		t.Errorf("found %q, a new member its own install linked", r.Found)
	}
}

// TestScanNewCrateTargetOutside: a Cargo.toml git does not track whose
// target (its lib, a binary, a test, a benchmark, an example) has its
// source by a path out of the project, or that names its workspace's
// root by one, is found; one whose targets lie in it is not.
func TestScanNewCrateTargetOutside(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"Cargo.toml":            "[workspace]\nmembers = [\"crates/*\"]\n",
		"crates/app/Cargo.toml": "[package]\nname = \"app\"\n",
	}, map[string]string{
		"crates/lib/Cargo.toml":     "[package]\nname = \"l\"\n[lib]\npath = \"/home/u/.claudebox/projects/0123456789abcdef/lib.rs\"\n",
		"crates/test/Cargo.toml":    "[package]\nname = \"t\"\n[[test]]\nname = \"t\"\npath = \"../../../t.rs\"\n",
		"crates/bin/Cargo.toml":     "[package]\nname = \"b\"\n[[bin]]\nname = \"b\"\npath = \"src/main.rs\"\n[[bin]]\nname = \"c\"\npath = \"/c.rs\"\n",
		"crates/bench/Cargo.toml":   "[package]\nname = \"e\"\n[[bench]]\nname = \"e\"\npath = \"../../../e.rs\"\n",
		"crates/example/Cargo.toml": "[package]\nname = \"x\"\n[[example]]\nname = \"x\"\npath = \"/x.rs\"\n",
		"crates/ws/Cargo.toml":      "[package]\nname = \"w\"\nworkspace = \"../../../ws\"\n",
		"crates/typed/Cargo.toml":   "[package]\nname = \"y\"\n[lib]\npath = 1\n",
		"crates/table/Cargo.toml":   "[package]\nname = \"z\"\n[bin]\npath = \"src/main.rs\"\n",
	}, map[string]string{
		"crates/inside/Cargo.toml": "[package]\nname = \"i\"\nworkspace = \"../..\"\n[lib]\npath = \"src/lib.rs\"\n[[bin]]\nname = \"i\"\npath = \"../../tools/i.rs\"\n[[test]]\nname = \"t\"\n",
	})
}
