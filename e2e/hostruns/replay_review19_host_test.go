package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview19MakeTarget: make takes a target newer than its
// sources for up to date and runs it as it stands, and git ignores a
// build's output. The exit audit judged an ignored executable only where
// one was there at the start: the project's build had not run yet (a
// fresh clone, make clean), and the session writes the target itself, a
// script of its own, newer than its source. Host-side proof: after the
// session, the host's make run runs nothing the session wrote.
func TestReplayReview19MakeTarget(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/app\n")
	h.Write(filepath.Join(proj, "app.sh"), "#!/bin/sh\necho built\n")
	h.Write(filepath.Join(proj, "Makefile"), "run: app\n\t./app\napp: app.sh\n\tcp app.sh app && chmod +x app\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "target", `
		printf '#!/bin/sh\ntouch `+marker+`\n' > app && chmod +x app`)
	h.RunsNothingPlanted(out, proj, nil, "make", "run")
}

// TestReplayReview19ComposerVendor: Composer installs a PHP project's
// dependencies in vendor/, which git ignores, and every entry point of
// the project requires vendor/autoload.php. The exit audit judged
// node_modules and site-packages, not vendor/: the session rewrites the
// autoloader. Host-side proof: after the session, the host's php
// main.php runs nothing the session wrote, and the exit names composer
// install.
func TestReplayReview19ComposerVendor(t *testing.T) {
	harness.RequireTool(t, "php", "apt-get install php-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/vendor/\n")
	h.Write(filepath.Join(proj, "composer.json"), "{\"require\": {}}\n")
	h.Write(filepath.Join(proj, "composer.lock"), "{\"packages\": []}\n")
	h.Write(filepath.Join(proj, "main.php"), "<?php\nrequire __DIR__ . '/vendor/autoload.php';\necho \"ok\\n\";\n")
	harness.CommitAll(h, proj, "php")
	h.Write(filepath.Join(proj, "vendor", "autoload.php"), "<?php\nrequire_once __DIR__ . '/composer/autoload_real.php';\n")
	h.Write(filepath.Join(proj, "vendor", "composer", "autoload_real.php"), "<?php\n")
	h.Run(proj, nil, "php", "main.php")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "autoloader", `
		printf '<?php\ntouch("`+marker+`");\n' > vendor/composer/autoload_real.php`)
	h.RunsNothingPlanted(out, proj, nil, "php", "main.php")
	if !strings.Contains(out, "composer install") {
		t.Errorf("the exit does not name composer install:\n%s", out)
	}
}

// TestReplayReview19YarnPnP: Yarn's Plug'n'Play installs no
// node_modules: its .pnp.cjs says where each package lies (a zip in
// .yarn/cache, or a directory in .yarn/unplugged for one that builds),
// and yarn run, yarn node and every script yarn starts load it and its
// ESM loader first (NODE_OPTIONS=--require .pnp.cjs
// --experimental-loader .pnp.loader.mjs). Where the project does not
// commit its installs, git ignores them all, and the exit audit judged
// only what is executable or a script (#!): the session rewrites the
// loader and an unplugged package's module. Host-side proof: after the
// session, node started as yarn starts it (the resolver here maps the
// package to its unplugged directory, as Yarn's does) runs nothing the
// session wrote.
func TestReplayReview19YarnPnP(t *testing.T) {
	harness.RequireTool(t, "node", "apt-get install nodejs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".pnp.*\n.yarn/*\n")
	h.Write(filepath.Join(proj, "package.json"), "{\"name\": \"p\", \"packageManager\": \"yarn@4.5.0\"}\n")
	h.Write(filepath.Join(proj, "yarn.lock"), "__metadata:\n  version: 8\n")
	h.Write(filepath.Join(proj, "main.js"), "require('dep')\nconsole.log('ok')\n")
	harness.CommitAll(h, proj, "yarn")
	dep := filepath.Join(".yarn", "unplugged", "dep-npm-1.0.0-abc", "node_modules", "dep")
	h.Write(filepath.Join(proj, ".pnp.cjs"), "#!/usr/bin/env node\nconst M = require('module'), r = M._resolveFilename\n"+
		"M._resolveFilename = (req, ...a) => req === 'dep' ? __dirname + '/"+dep+"/index.js' : r(req, ...a)\n")
	h.Write(filepath.Join(proj, ".pnp.loader.mjs"), "export {}\n")
	h.Write(filepath.Join(proj, dep, "index.js"), "module.exports = 1\n")
	h.Write(filepath.Join(proj, dep, "package.json"), "{\"name\": \"dep\"}\n")
	yarn := []string{"NODE_OPTIONS=--require " + filepath.Join(proj, ".pnp.cjs") + " --experimental-loader file://" + filepath.Join(proj, ".pnp.loader.mjs")}
	h.Run(proj, yarn, "node", "main.js")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "install", `
		printf 'import fs from "fs"\nfs.writeFileSync("`+marker+`.loader", "")\n' > .pnp.loader.mjs
		printf 'require("fs").writeFileSync("`+marker+`.dep", "")\n' >> `+dep+`/index.js`)
	ran, _ := h.Command(proj, yarn, "node", "main.js").CombinedOutput()
	for _, what := range []string{"loader", "dep"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("node started as yarn starts it ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview19GoWork: go reads a go.work in the module's directory
// or any above it, and builds the modules its use and replace lines name
// in place of those go.mod requires; Go's own advice is not to commit it,
// and git ignores it with the rest of a developer's own. The exit audit
// judged no go.work: the session writes one that replaces the project's
// dependency with its own copy, in an ignored directory. Host-side proof:
// after the session, the host's go run . runs nothing the session wrote.
func TestReplayReview19GoWork(t *testing.T) {
	goTool := harness.RequireTool(t, "go", "https://go.dev/dl")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "go.work*\n.cache/\n")
	h.Write(filepath.Join(proj, "go.mod"), "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	h.Write(filepath.Join(proj, "main.go"), "package main\n\nimport _ \"example.com/dep\"\n\nfunc main() { println(\"ok\") }\n")
	h.Write(filepath.Join(proj, "dep", "go.mod"), "module example.com/dep\n\ngo 1.21\n")
	h.Write(filepath.Join(proj, "dep", "dep.go"), "package dep\n")
	harness.CommitAll(h, proj, "go")
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off"}
	h.Run(proj, env, goTool, "run", ".")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "workspace", `
		mkdir -p .cache/dep
		printf 'module example.com/dep\n\ngo 1.21\n' > .cache/dep/go.mod
		printf 'package dep\n\nimport "os"\n\nfunc init() { os.WriteFile("`+marker+`", nil, 0o644) }\n' > .cache/dep/dep.go
		printf 'go 1.21\n\nuse .\n\nreplace example.com/dep => ./.cache/dep\n' > go.work`)
	h.RunsNothingPlanted(out, proj, env, goTool, "run", ".")
}

// TestReplayReview19MakefileLocal: a Makefile's -include Makefile.local
// (a developer's own settings, which git ignores) runs what that file's
// $(shell …) says at every make; the exit audit judged *.mk parts, not
// the Makefile.<name> ones. Host-side proof: after the session, the
// host's make runs nothing the session wrote.
func TestReplayReview19MakefileLocal(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "Makefile.local\n")
	h.Write(filepath.Join(proj, "Makefile"), "-include Makefile.local\nall:\n\t@echo ok\n")
	harness.CommitAll(h, proj, "make")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "makefile's part", `
		printf 'X := $(shell touch `+marker+`)\n' > Makefile.local`)
	h.RunsNothingPlanted(out, proj, nil, "make")
}

// TestReplayReview19BundlerConfig: Bundler reads the project's
// .bundle/config, which git ignores (bundle config set --local writes
// it), and evaluates as Ruby the Gemfile its BUNDLE_GEMFILE names at
// every bundle exec. The exit audit judged nothing in .bundle: the
// session points it at a Gemfile of its own in an ignored directory.
// Host-side proof: after the session, the host's bundle exec runs
// nothing the session wrote.
func TestReplayReview19BundlerConfig(t *testing.T) {
	harness.RequireTool(t, "bundle", "apt-get install ruby bundler")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".bundle/\n.cache/\n")
	h.Write(filepath.Join(proj, "Gemfile"), "source 'https://rubygems.org'\n")
	h.Write(filepath.Join(proj, "Gemfile.lock"), "GEM\n  remote: https://rubygems.org/\n  specs:\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n")
	harness.CommitAll(h, proj, "ruby")
	h.Write(filepath.Join(proj, ".bundle", "config"), "---\nBUNDLE_JOBS: \"4\"\n")
	h.Run(proj, nil, "bundle", "exec", "ruby", "-e", "1")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "config", `
		mkdir -p .cache
		printf 'File.write("`+marker+`", "")\nsource "https://rubygems.org"\n' > .cache/Gemfile
		cp Gemfile.lock .cache/Gemfile.lock
		printf -- '---\nBUNDLE_JOBS: "4"\nBUNDLE_GEMFILE: "%s/.cache/Gemfile"\n' "$PWD" > .bundle/config`)
	h.RunsNothingPlanted(out, proj, nil, "bundle", "exec", "ruby", "-e", "1")
}

// TestReplayReview19InterpretedScripts: the exit audit judged an ignored
// file the host runs by what it is at the end, an executable or a
// script (#!): the host runs many by their interpreter (sh
// scripts/dev.sh, node dist/index.js), which needs neither. The session
// rewrites an ignored script there at the start without its #! line, and
// writes a build's output the project's start script runs (a tsc -b or
// a bundler's dist/, which git ignores). Host-side proof: after the
// session, the host's make dev and node dist/index.js run nothing the
// session wrote.
func TestReplayReview19InterpretedScripts(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	harness.RequireTool(t, "node", "apt-get install nodejs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/scripts/dev.sh\n/dist/\n")
	h.Write(filepath.Join(proj, "Makefile"), "dev:\n\tsh scripts/dev.sh\n")
	harness.CommitAll(h, proj, "dev")
	h.Write(filepath.Join(proj, "scripts", "dev.sh"), "#!/bin/sh\necho dev\n")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "scripts", `
		printf 'touch `+marker+`.sh\n' > scripts/dev.sh
		mkdir dist && printf 'require("fs").writeFileSync("`+marker+`.js", "")\n' > dist/index.js`)
	made, _ := h.Command(proj, nil, "make", "dev").CombinedOutput()
	ran, _ := h.Command(proj, nil, "node", "dist/index.js").CombinedOutput()
	for _, what := range []string{"sh", "js"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host ran the session's %s script by its interpreter:\n%s\n%s%s", what, out, made, ran)
		}
	}
}

// TestReplayReview19IgnoredSources: a build compiles the sources it finds
// where it looks, ignored or not: go build takes a module's packages from
// vendor/ when vendor/modules.txt is there, and a project that keeps its
// vendor/ out of git (or its generated sources: protobuf's, a header)
// has git show nothing of a change there. The exit audit judged scripts
// by their extension, not sources: the session rewrites the vendored
// dependency. Host-side proof: after the session, the host's go run .
// runs nothing the session wrote.
func TestReplayReview19IgnoredSources(t *testing.T) {
	goTool := harness.RequireTool(t, "go", "https://go.dev/dl")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/vendor/\n")
	h.Write(filepath.Join(proj, "go.mod"), "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	h.Write(filepath.Join(proj, "main.go"), "package main\n\nimport _ \"example.com/dep\"\n\nfunc main() { println(\"ok\") }\n")
	h.Write(filepath.Join(proj, "dep", "go.mod"), "module example.com/dep\n\ngo 1.21\n")
	h.Write(filepath.Join(proj, "dep", "dep.go"), "package dep\n")
	harness.CommitAll(h, proj, "go")
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off"}
	h.Run(proj, env, goTool, "mod", "vendor")
	h.Run(proj, env, goTool, "run", ".")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "vendored source", `
		printf 'package dep\n\nimport "os"\n\nfunc init() { os.WriteFile("`+marker+`", nil, 0o644) }\n' > vendor/example.com/dep/dep.go`)
	h.RunsNothingPlanted(out, proj, env, goTool, "run", ".")
}
