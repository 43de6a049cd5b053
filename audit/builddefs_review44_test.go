package audit

import "testing"

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
