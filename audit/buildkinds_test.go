package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanBuildDirs: what a tool installed or built into a directory of
// its own, which git ignores and the host's tool runs from later, is
// judged as node_modules is: cargo's target/ (beside a Cargo.toml),
// Maven's (beside a pom.xml), Gradle's .gradle, renv's renv/library,
// Turborepo's, Nx's, Parcel's and Angular's caches, mix's deps/, Dart's .dart_tool,
// Composer's vendor/ (beside a composer.json), Bundler's vendor/bundle,
// mix's _build (beside a mix.exs), Next.js' .next, bootsnap's
// tmp/cache/bootsnap, Yarn's .yarn/cache and .yarn/unplugged; each unit
// the session changed goes aside whole, named with the command that makes
// it again, and what it did not touch stays. A directory of such a name
// without the file that says which tool made it (a target/ in a project
// with no Cargo.toml) is no such directory, and Yarn's Plug'n'Play
// resolver and loader are findings unless git tracks them.
func TestScanBuildDirs(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"Cargo.toml", "web/composer.json", "app/Gemfile", "ex/mix.exs", "yarn.lock", "mvn/pom.xml"} {
		write(t, filepath.Join(root, p))
	}
	start := []string{
		"target/debug/app", "target/release/app",
		"web/vendor/autoload.php", "web/vendor/acme/lib/a.php",
		"app/vendor/bundle/ruby/3.1.0/gems/rake/lib/rake.rb", "app/vendor/javascript/x.js",
		"app/tmp/cache/bootsnap/compile-cache-iseq/00/aa", "app/tmp/cache/assets/x",
		"ex/_build/dev/lib/app/ebin/app.beam",
		"mvn/target/classes/App.class", "gr/.gradle/configuration-cache/k/entry.bin", "r/renv/library/R-4.3/x86_64-pc-linux-gnu/pkg/R/pkg",
		"mono/.turbo/cache/abc.tar.zst", "mono/.nx/cache/123/outputs/dist/x",
		"ex/deps/plug/lib/plug.ex", "fl/.dart_tool/package_config.json",
		"site/.next/server/app/page.js", "site/.next/static/x.js",
		"pw/.parcel-cache/data.mdb", "ng/.angular/cache/19.0.0/app/x.json",
		".yarn/cache/dep-npm-1.0.0.zip", ".yarn/cache/kept-npm-1.0.0.zip", ".yarn/unplugged/dep-npm-1.0.0/node_modules/dep/index.js",
		"other/target/debug/app",
		".pnp.cjs", ".pnp.loader.mjs",
	}
	for _, p := range start {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	snap := Take(root, since, nil, nil)
	for _, p := range []string{
		"target/debug/app", "web/vendor/acme/lib/a.php", "app/vendor/bundle/ruby/3.1.0/gems/rake/lib/rake.rb",
		"app/tmp/cache/bootsnap/compile-cache-iseq/00/aa", "ex/_build/dev/lib/app/ebin/app.beam",
		"mvn/target/classes/App.class", "gr/.gradle/configuration-cache/k/entry.bin", "r/renv/library/R-4.3/x86_64-pc-linux-gnu/pkg/R/pkg",
		"mono/.turbo/cache/abc.tar.zst", "mono/.nx/cache/123/outputs/dist/x",
		"ex/deps/plug/lib/plug.ex", "fl/.dart_tool/package_config.json",
		"site/.next/server/app/page.js", ".yarn/cache/dep-npm-1.0.0.zip",
		"pw/.parcel-cache/data.mdb", "ng/.angular/cache/19.0.0/app/x.json",
		".yarn/unplugged/dep-npm-1.0.0/node_modules/dep/index.js",
		"other/target/debug/app", ".pnp.loader.mjs", "app/vendor/javascript/x.js",
	} {
		must(t, os.WriteFile(filepath.Join(root, p), []byte("planted"), 0o644))
	}
	r := Scan(root, since, nil, snap, nil)
	want := map[string]struct {
		unit, where, command string
	}{
		"target":                 {"debug", "", "cargo build"},
		"web/vendor":             {"acme", "web", "composer install"},
		"app/vendor/bundle":      {"ruby", "app", "bundle install"},
		"app/tmp/cache/bootsnap": {"compile-cache-iseq", "app", "bin/rails runner true"},
		"ex/_build":              {"dev", "ex", "mix compile"},
		"mvn/target":             {"classes", "mvn", "mvn compile"},
		"gr/.gradle":             {"configuration-cache", "gr", "gradle build"},
		"r/renv/library":         {"R-4.3", "r", "Rscript -e 'renv::restore()'"},
		"mono/.turbo":            {"cache", "mono", "turbo run build"},
		"mono/.nx":               {"cache", "mono", "nx run-many -t build"},
		"ex/deps":                {"plug", "ex", "mix deps.get"},
		"fl/.dart_tool":          {"package_config.json", "fl", "dart pub get"},
		"site/.next":             {"server", "site", "next build"},
		"pw/.parcel-cache":       {"data.mdb", "pw", "parcel build"},
		"ng/.angular/cache":      {"19.0.0", "ng", "ng build"},
		".yarn/cache":            {"dep-npm-1.0.0.zip", "", "yarn install --immutable"},
		".yarn/unplugged":        {"dep-npm-1.0.0", "", "yarn install --immutable"},
	}
	var dirs []string
	for _, d := range r.Deps {
		rel, _ := filepath.Rel(root, d.Dir)
		dirs = append(dirs, rel)
		w, ok := want[rel]
		if !ok {
			continue
		}
		if !slices.Equal(d.Units, []string{filepath.Join(d.Dir, w.unit)}) {
			t.Errorf("%s: units %q, want %s", rel, d.Units, w.unit)
		}
		if where, command := InstallCommand(d.Dir); where != filepath.Join(root, w.where) || command != w.command {
			t.Errorf("%s: made again by %q in %s, want %q in %s", rel, command, where, w.command, w.where)
		}
	}
	slices.Sort(dirs)
	wantDirs := []string{".yarn/cache", ".yarn/unplugged", "app/tmp/cache/bootsnap", "app/vendor/bundle", "ex/_build", "ex/deps", "fl/.dart_tool", "gr/.gradle", "mono/.nx", "mono/.turbo", "mvn/target", "ng/.angular/cache", "pw/.parcel-cache", "r/renv/library", "site/.next", "target", "web/vendor"}
	if !slices.Equal(dirs, wantDirs) {
		t.Errorf("judged %q, want %q", dirs, wantDirs)
	}
	if want := []string{filepath.Join(root, ".pnp.loader.mjs")}; !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}

// TestScanBuildDirsTracked: a project that commits its Yarn installs
// (zero-install) has git show a change to .pnp.cjs or a zip of
// .yarn/cache: neither is a finding.
func TestScanBuildDirsTracked(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".pnp.cjs", ".yarn/cache/dep-npm-1.0.0.zip"} {
		write(t, filepath.Join(root, p))
	}
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	since := mark(t, t.TempDir())
	snap := Take(root, since, nil, nil)
	for _, p := range []string{".pnp.cjs", ".yarn/cache/dep-npm-1.0.0.zip"} {
		must(t, os.WriteFile(filepath.Join(root, p), []byte("changed"), 0o644))
	}
	if r := Scan(root, since, nil, snap, nil); r.Found != nil || r.Deps != nil {
		t.Errorf("found %q, dependencies %+v", r.Found, r.Deps)
	}
}
