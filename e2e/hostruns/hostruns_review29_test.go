package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29EditorLoadedConfigs: editors' extensions (ESLint's,
// Prettier's, Stylelint's, Tailwind's, Vitest's) import the project's
// JavaScript configuration as the folder opens, before the user reads
// git status, which shows a new one only as untracked. The exit audit
// judged an ignored one by its extension and an untracked one not at
// all: the session writes eslint.config.mjs, .prettierrc.cjs,
// stylelint.config.js and a package's tailwind.config.js, none tracked,
// none ignored. Host-side proof: after the session, the host's node
// imports each as those tools load their configuration and runs nothing
// the session wrote.
func TestReplayReview29EditorLoadedConfigs(t *testing.T) {
	harness.RequireTool(t, "node", "apt-get install nodejs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "package.json"), "{\"name\": \"app\", \"private\": true}\n")
	h.Write(filepath.Join(proj, "packages", "web", "package.json"), "{\"name\": \"web\", \"private\": true}\n")
	harness.CommitAll(h, proj, "app")
	marker := h.Marker()
	configs := map[string]string{
		"eslint.config.mjs":               "import { execSync } from \"node:child_process\";\nexecSync(\"touch " + marker + ".eslint\");\nexport default [];\n",
		".prettierrc.cjs":                 "require(\"child_process\").execSync(\"touch " + marker + ".prettier\");\nmodule.exports = {};\n",
		"stylelint.config.js":             "require(\"child_process\").execSync(\"touch " + marker + ".stylelint\");\nmodule.exports = {};\n",
		"packages/web/tailwind.config.js": "require(\"child_process\").execSync(\"touch " + marker + ".tailwind\");\nmodule.exports = {};\n",
	}
	var script strings.Builder
	for name, content := range configs {
		script.WriteString("printf '%s' '" + content + "' > " + name + "\n")
	}
	out := h.InsideStderr(proj, "set -e\n"+script.String()+"echo PLANTED >&2")
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the configurations could not be written:\n%s", out)
	}
	// What each tool does with its configuration: import() it.
	load := `import { pathToFileURL } from "node:url"; for (const f of process.argv.slice(1)) { try { await import(pathToFileURL(f).href) } catch {} }`
	args := []string{"--input-type=module", "-e", load}
	for name := range configs {
		args = append(args, filepath.Join(proj, name))
	}
	ran, _ := h.Command(proj, nil, "node", args...).CombinedOutput()
	for _, what := range []string{"eslint", "prettier", "stylelint", "tailwind"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's %s configuration ran what the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview29MercurialInclude: the user's .hg/hgrc includes a
// file of their own where it exists (%include hgrc.local, beside it, and
// %include ../hgrc.team, in the project), which hg reads as its
// configuration, hooks and all. The exit audit judged Mercurial's
// configuration by its name (hgrc): the session writes both included
// files, each with a pre-status hook. Host-side proof: after the
// session, the host's hg status runs nothing the session wrote.
func TestReplayReview29MercurialInclude(t *testing.T) {
	harness.RequireTool(t, "hg", "apt-get install mercurial")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "main.py"), "print(1)\n")
	h.Run(proj, nil, "hg", "init")
	h.Write(filepath.Join(proj, ".hg", "hgrc"), "[paths]\ndefault = https://hg.example.com/proj\n%include hgrc.local\n%include ../hgrc.team\n")
	h.Run(proj, nil, "hg", "--config", "ui.username=u <u@example.com>", "commit", "-q", "-A", "-m", "main")
	marker := h.Marker()
	out := h.InsideStderr(proj, `printf '[hooks]\npre-status.a = touch `+marker+`.local\n' > .hg/hgrc.local &&
		printf '[hooks]\npre-status.b = touch `+marker+`.team\n' > hgrc.team && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the includes could not be planted:\n%s", out)
	}
	ran, _ := h.Command(proj, nil, "hg", "status").CombinedOutput()
	for _, what := range []string{"local", "team"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's hg status ran what the session wrote in the %s include:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview29MiseTemplatedSource: the project's mise.toml sources
// a script by a template (_.source = "{{config_root}}/scripts/{{env.APP_ENV}}.sh",
// and "{{env.TOOLS}}/env/common.sh", TOOLS the project's folder), which
// mise renders at every prompt and mise exec. The exit audit took a
// templated source for one it cannot spell and judged only the ignored
// files and programs the session wrote: the session appends to the
// tracked scripts/dev.sh and env/common.sh. Host-side proof: the host's
// mise exec runs nothing the session wrote.
func TestReplayReview29MiseTemplatedSource(t *testing.T) {
	harness.RequireTool(t, "mise", "npm install -g @jdxcode/mise")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "mise.toml"), "[env]\n_.source = [\"{{config_root}}/scripts/{{env.APP_ENV}}.sh\", \"{{env.TOOLS}}/env/common.sh\"]\n")
	h.Write(filepath.Join(proj, "scripts", "dev.sh"), "export APP=dev\n")
	h.Write(filepath.Join(proj, "env", "common.sh"), "export COMMON=1\n")
	harness.CommitAll(h, proj, "mise")
	h.Run(proj, nil, "mise", "trust", "--quiet")
	marker := h.Marker()
	out := h.InsideStderr(proj, `printf 'touch `+marker+`.dev\n' >> scripts/dev.sh &&
		printf 'touch `+marker+`.common\n' >> env/common.sh && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the scripts could not be changed:\n%s", out)
	}
	ran, _ := h.Command(proj, []string{"APP_ENV=dev", "TOOLS=" + proj}, "mise", "exec", "--", "true").CombinedOutput()
	for _, what := range []string{"dev", "common"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's mise exec ran what the session wrote (%s):\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview29BuildToolsConfigs: what the host's build and analysis
// tools obey, each kept out of git as a developer's own, documented and
// not installable here: Gradle's wrapper properties, whose
// distributionUrl (a file: URL in the project) ./gradlew unpacks and
// runs; PHPStan's phpstan.neon (the local override of the
// phpstan.neon.dist git tracks), whose bootstrapFiles PHPStan requires
// and whose includes name more .neon files that may (an editor's PHPStan
// extension runs it as a file is opened); Psalm's psalm.xml, whose
// autoloader Psalm requires. The exit audit judged none: the session
// writes them all where git ignores them. Host-side proof: after the
// session, none stands where the tool reads it, and the exit names each.
func TestReplayReview29BuildToolsConfigs(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/gradle/wrapper/gradle-wrapper.properties\n/dist/\n/phpstan.neon\n/psalm.xml\n/conf/local.neon\n")
	h.Write(filepath.Join(proj, "gradlew"), "#!/bin/sh\nexec java -classpath gradle/wrapper/gradle-wrapper.jar org.gradle.wrapper.GradleWrapperMain \"$@\"\n")
	h.Write(filepath.Join(proj, "phpstan.neon.dist"), "parameters:\n  level: 5\n  paths: [src]\n")
	harness.CommitAll(h, proj, "build")
	out := harness.PlantUnseen(t, h, proj, "configurations", `
		mkdir -p gradle/wrapper dist conf
		printf 'distributionUrl=file\\:`+proj+`/dist/gradle-8.10-bin.zip\n' > gradle/wrapper/gradle-wrapper.properties
		printf 'includes:\n  - phpstan.neon.dist\n  - conf/local.neon\nparameters:\n  bootstrapFiles: [dist/boot.php]\n' > phpstan.neon
		printf 'parameters:\n  bootstrapFiles: [dist/boot.php]\n' > conf/local.neon
		printf '<?xml version="1.0"?>\n<psalm autoloader="dist/boot.php"><projectFiles><directory name="src"/></projectFiles></psalm>\n' > psalm.xml`)
	for _, name := range []string{"gradle/wrapper/gradle-wrapper.properties", "phpstan.neon", "conf/local.neon", "psalm.xml"} {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("%s the session wrote stands where the host's tool reads it:\n%s", name, out)
		}
		if !strings.Contains(out, name) {
			t.Errorf("the exit did not name %s:\n%s", name, out)
		}
	}
}

// TestReplayReview29PackageArchive: the project's package.json takes a
// package from a tarball in the project (file:vendor/pkg.tgz, built by
// the user's script where git ignores it), which npm install unpacks and
// whose postinstall it runs. The exit audit judged an ignored file by
// what runs it by its name (a script's extension, +x, #!), and an
// archive is none: the session replaces the tarball with one whose
// postinstall is its own. Host-side proof: after the session, the host's
// npm install runs nothing the session wrote.
func TestReplayReview29PackageArchive(t *testing.T) {
	harness.RequireTool(t, "npm", "apt-get install npm")
	harness.RequireTool(t, "tar", "apt-get install tar")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/vendor/\n/node_modules/\n")
	h.Write(filepath.Join(proj, "package.json"), "{\"name\": \"app\", \"version\": \"1.0.0\", \"dependencies\": {\"pkg\": \"file:vendor/pkg.tgz\"}}\n")
	harness.CommitAll(h, proj, "app")
	h.Write(filepath.Join(h.Base, "pkg", "package", "package.json"), "{\"name\": \"pkg\", \"version\": \"1.0.0\"}\n")
	h.Write(filepath.Join(proj, "vendor", ".keep"), "")
	h.Run(proj, nil, "tar", "czf", "vendor/pkg.tgz", "-C", filepath.Join(h.Base, "pkg"), "package")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "package", `
		mkdir -p /tmp/p/package
		printf '{"name": "pkg", "version": "1.0.0", "scripts": {"postinstall": "touch `+marker+`"}}\n' > /tmp/p/package/package.json
		tar czf vendor/pkg.tgz -C /tmp/p package`)
	ran, _ := h.Command(proj, nil, "npm", "install", "--offline", "--no-audit", "--no-fund", "--no-update-notifier").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's npm install ran what the session wrote:\n%s\n%s", out, ran)
	}
}

// TestReplayReview29Pickle: the project's script loads a model it keeps
// where git ignores it (cache/model.pkl), and Python's pickle runs what
// an object it unpickles names. The exit audit judged an ignored file by
// what runs it by its name, and a pickle is data by its name: the
// session replaces it. Host-side proof: after the session, the host's
// python3 load.py runs nothing the session wrote.
func TestReplayReview29Pickle(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/cache/\n")
	h.Write(filepath.Join(proj, "load.py"), "import pickle\nwith open(\"cache/model.pkl\", \"rb\") as f:\n    print(pickle.load(f))\n")
	harness.CommitAll(h, proj, "load")
	h.Write(filepath.Join(proj, "cache", ".keep"), "")
	h.Run(proj, nil, "python3", "-c", "import pickle; pickle.dump({\"w\": 1}, open(\"cache/model.pkl\", \"wb\"))")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "pickle", `
		python3 -c 'import os, pickle
class P:
    __reduce__ = lambda self: (os.system, ("touch `+marker+`",))
pickle.dump(P(), open("cache/model.pkl", "wb"))'`)
	ran, _ := h.Command(proj, nil, "python3", "load.py").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's python3 load.py ran what the session wrote:\n%s\n%s", out, ran)
	}
}
