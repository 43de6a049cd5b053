package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanNewWorkspaceMemberManifest: a package.json git does not track
// that has an install of its workspace run code it chooses is found: a
// script of the install's lifecycle, a dependency or an override from a
// git repository or a tarball's URL, a program it links into
// node_modules/.bin, or one that is no JSON; and so are a binding.gyp,
// which npm builds with node-gyp, and pnpm's package.json5 and
// package.yaml. One with the registry's
// versions, aliases, workspaces' and paths alone is not, nor one whose
// scripts run only when asked (test, build), nor a tracked one
// rewritten, which git shows.
func TestScanNewWorkspaceMemberManifest(t *testing.T) {
	scanFindsMade(t, map[string]string{
		"package.json":              `{"workspaces": ["packages/*"]}`,
		"packages/app/package.json": `{"name": "app"}`,
		"packages/e/package.json":   `{"name": "e"}`,
	}, map[string]string{
		"packages/post/package.json":     `{"scripts": {"postinstall": "node x.js"}}`,
		"packages/prepare/package.json":  `{"scripts": {"prepare": "husky"}}`,
		"packages/git/package.json":      `{"dependencies": {"x": "git+https://example.com/x.git"}}`,
		"packages/short/package.json":    `{"devDependencies": {"x": "user/x#main"}}`,
		"packages/tarball/package.json":  `{"optionalDependencies": {"x": "https://example.com/x.tgz"}}`,
		"packages/override/package.json": `{"overrides": {"y": {"x": "github:user/x"}}}`,
		"packages/broken/package.json":   `{"scripts": `,
		"packages/native/binding.gyp":    `{"targets": [{"target_name": "<!(touch x)"}]}`,
		"packages/cli/package.json":      `{"bin": {"jest": "e.js"}}`,
		"packages/dirs/package.json":     `{"directories": {"bin": "tools"}}`,
		"packages/json5/package.json5":   `{scripts: {}}`,
		"packages/yaml/package.yaml":     "name: y\n",
	}, map[string]string{
		"packages/plain/package.json": `{"scripts": {"test": "node t.js", "build": "tsc"}, "dependencies": {"a": "^1.2.0", "b": "npm:c@2", "d": "workspace:*", "e": "file:../e", "f": "latest"}, "overrides": {"g": "1.0.0"}}`,
		"packages/app/package.json":   `{"scripts": {"postinstall": "node x.js"}}`,
	})
}

// TestScanNewBuildDefinitions: Gradle's build scripts anywhere, its
// buildSrc (its scripts at its top, its sources) and an included build's
// sources (below a folder with settings of its own), sbt's *.sbt
// anywhere, and its build definition
// (project/'s *.scala and *.java beside a build.sbt or by sbt's
// build.properties, project/project/), made untracked, are found; what
// the tools write there as they build (buildSrc/build, project/target),
// a project/ directory of no sbt build, a project's sources where no
// settings lie above them, and a tracked build definition
// rewritten, which git shows, are not.
func TestScanNewBuildDefinitions(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"build.sbt", "project/Deps.scala", "lib/project/build.properties", "docs/project/Guide.java", "settings.gradle.kts", "build-logic/settings.gradle", "app/build.gradle.kts"} {
		write(t, filepath.Join(root, rel))
	}
	gitAdd(t, root)
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, rel := range []string{
		"buildSrc/build.gradle.kts", "buildSrc/settings.gradle", "buildSrc/src/main/kotlin/Evil.kt", "sub/buildSrc/src/main/groovy/E.groovy",
		"modules/evil/build.gradle.kts", "gradle/evil.gradle", "build-logic/src/main/kotlin/E.kt", "build-logic/src/main/kotlin/conv.gradle.kts",
		"local.sbt", "sub/app.sbt", "project/Evil.scala", "project/Evil.java", "project/project/Meta.scala", "lib/project/X.scala",
	} {
		write(t, filepath.Join(root, rel))
		want = append(want, filepath.Join(root, rel))
	}
	for _, rel := range []string{"buildSrc/build/classes/E.class", "project/target/x.class", "project/notes.md", "docs/project/New.java", "src/main/scala/Main.scala", "app/src/main/java/New.java", "build-logic/build/classes/E.class"} {
		write(t, filepath.Join(root, rel))
	}
	write(t, filepath.Join(root, "project/Deps.scala"))
	write(t, filepath.Join(root, "app/build.gradle.kts"))
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// scanFindsMade lays out tracked (path: content) in a repository, starts
// a session, writes made and then kept, and checks that the exit audit's
// scan finds exactly made: kept is what it must pass (a path of tracked
// rewritten among them).
func scanFindsMade(t *testing.T, tracked, made, kept map[string]string) {
	t.Helper()
	root := t.TempDir()
	put := func(files map[string]string) {
		for rel, s := range files {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	put(tracked)
	gitAdd(t, root)
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	put(made)
	put(kept)
	var want []string
	for rel := range made {
		want = append(want, filepath.Join(root, rel))
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}

// gitAdd makes root a repository tracking what it holds.
func gitAdd(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
}
