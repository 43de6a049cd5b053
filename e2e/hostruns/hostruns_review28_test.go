package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview28RailsERBConfig: Rails reads config/database.yml, and
// every config/*.yml config_for loads, through ERB before YAML, so
// <%= system(…) %> there runs at the host's bin/rails runner, rails s and
// rails test; figaro's config/application.yml likewise. Both are kept
// out of git (the user's own database settings, secrets). The exit audit
// judged an ignored file by the extensions interpreters run, and YAML is
// none: the session rewrites the user's config/database.yml and writes
// config/application.yml. Host-side proof: after the session, the host
// reads both as Rails does (ERB, then YAML) and runs nothing the session
// wrote.
func TestReplayReview28RailsERBConfig(t *testing.T) {
	harness.RequireTool(t, "ruby", "apt-get install ruby")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/config/database.yml\n/config/application.yml\n")
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\ngem \"rails\"\n")
	h.Write(filepath.Join(proj, "config", "application.rb"), "require_relative \"boot\"\n")
	harness.CommitAll(h, proj, "rails")
	h.Write(filepath.Join(proj, "config", "database.yml"), "development:\n  adapter: sqlite3\n  database: db/development.sqlite3\n")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "configuration", `
		printf 'development:\n  adapter: <%%= system("touch `+marker+`.database") && "sqlite3" %%>\n' > config/database.yml
		printf 'API_KEY: <%%= system("touch `+marker+`.application") %%>\n' > config/application.yml`)
	// What Rails' database_configuration and config_for do with each.
	read := `require "erb"; require "yaml"; ARGV.each { |f| YAML.load(ERB.new(File.read(f)).result) if File.exist?(f) }`
	ran, _ := h.Command(proj, nil, "ruby", "-e", read, "config/database.yml", "config/application.yml").CombinedOutput()
	for _, what := range []string{"database", "application"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's Rails read of config/%s.yml ran what the session wrote:\n%s\n%s", what, out, ran)
		}
		if !strings.Contains(out, what+".yml") {
			t.Errorf("the exit did not name config/%s.yml:\n%s", what, out)
		}
	}
}

// TestReplayReview28TestAndBuildRunnerConfigs: three files the host's
// build and test runners read where they run, each kept out of git as a
// developer's own: CMake's CMakeUserPresets.json (CMake's documentation
// says never to commit it), whose preset's cache variables set a compiler
// launcher that runs at every compile after cmake --preset; PHPUnit's
// phpunit.xml (the local override of the phpunit.xml.dist git tracks),
// whose bootstrap PHP requires, running any <?php … ?> in it, the
// configuration itself included; and prove's .proverc, whose options
// and test files prove takes before its own (--exec=/bin/sh and the
// .proverc itself: sh runs its lines). The exit audit judged none: the session rewrites the three.
// Host-side proof: after the session, the host's cmake --preset dev and
// build, phpunit and prove run nothing the session wrote.
func TestReplayReview28TestAndBuildRunnerConfigs(t *testing.T) {
	harness.RequireTool(t, "cmake", "apt-get install cmake")
	harness.RequireTool(t, "cc", "apt-get install gcc")
	harness.RequireTool(t, "phpunit", "apt-get install phpunit")
	harness.RequireTool(t, "prove", "apt-get install perl")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n/CMakeUserPresets.json\n/phpunit.xml\n/.proverc\n")
	h.Write(filepath.Join(proj, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.19)\nproject(app C)\nadd_executable(app main.c)\n")
	h.Write(filepath.Join(proj, "main.c"), "int main(void) { return 0; }\n")
	suite := "<testsuites><testsuite name=\"unit\"><directory>tests</directory></testsuite></testsuites>"
	h.Write(filepath.Join(proj, "phpunit.xml.dist"), "<?xml version=\"1.0\"?>\n<phpunit>"+suite+"</phpunit>\n")
	h.Write(filepath.Join(proj, "tests", "UnitTest.php"), "<?php\nfinal class UnitTest extends PHPUnit\\Framework\\TestCase {\n    public function testTrue(): void { $this->assertTrue(true); }\n}\n")
	h.Write(filepath.Join(proj, "t", "unit.t"), "print \"1..1\\nok 1\\n\";\n")
	harness.CommitAll(h, proj, "runners")
	h.Write(filepath.Join(proj, "CMakeUserPresets.json"), `{"version": 3, "configurePresets": [{"name": "dev", "binaryDir": "build"}]}`+"\n")
	h.Write(filepath.Join(proj, "phpunit.xml"), "<?xml version=\"1.0\"?>\n<phpunit colors=\"true\">"+suite+"</phpunit>\n")
	h.Write(filepath.Join(proj, ".proverc"), "--verbose\n")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "runners' configurations", `
		printf '{"version": 3, "configurePresets": [{"name": "dev", "binaryDir": "build", "cacheVariables": {"CMAKE_C_COMPILER_LAUNCHER": "/bin/sh;-c;touch `+marker+`.cmake && exec \\"$0\\" \\"$@\\""}}]}\n' > CMakeUserPresets.json
		printf '<?xml version="1.0"?>\n<?php touch("`+marker+`.phpunit"); ?>\n<phpunit bootstrap="phpunit.xml">`+suite+`</phpunit>\n' > phpunit.xml
		printf -- '--exec=/bin/sh\n.proverc\nx=1; touch `+marker+`.prove\n' > .proverc`)
	for _, command := range [][]string{{"cmake", "--preset", "dev"}, {"cmake", "--build", "build"}, {"phpunit"}, {"prove"}} {
		ran, _ := h.Command(proj, nil, command[0], command[1:]...).CombinedOutput()
		for _, what := range []string{"cmake", "phpunit", "prove"} {
			if _, err := os.Stat(marker + "." + what); err == nil {
				t.Errorf("the host's %s ran what the session wrote (%s):\n%s\n%s", strings.Join(command, " "), what, out, ran)
				os.Remove(marker + "." + what)
			}
		}
	}
}

// TestReplayReview28EnvrcSourcedByVariable: the project's .envrc sources
// "${ENV_FILE:-config/dev.env}" (a variable's file, or the tracked
// config/dev.env by default), a name with no literal part past its
// expansion. The exit audit took for what it may source only the files
// git ignores and the programs below it: the session appends to the
// tracked config/dev.env, which direnv runs at the next cd, before git
// status shows the change. Host-side proof: the host's direnv, the .envrc
// allowed before, runs nothing the session wrote until the user allows
// it again; a package's own .envrc, which sources nothing, stays allowed.
func TestReplayReview28EnvrcSourcedByVariable(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env \"${ENV_FILE:-config/dev.env}\"\n")
	h.Write(filepath.Join(proj, "config", "dev.env"), "export APP_ENV=dev\n")
	h.Write(filepath.Join(proj, "pkg", ".envrc"), "export PKG=1\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	h.Run(proj, nil, "direnv", "allow", "pkg")
	marker := h.Marker()
	out := h.Plant(proj, "the file", `printf 'touch `+marker+`\n' >> config/dev.env && printf 'package pkg\n' > pkg/pkg.go`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", "git status")
	if !strings.Contains(out, "direnv allow") {
		t.Errorf("the exit did not say direnv asks again:\n%s", out)
	}
	pkg, err := h.Command(proj, nil, "direnv", "exec", "pkg", "sh", "-c", "echo PKG=$PKG").CombinedOutput()
	if err != nil || !strings.Contains(string(pkg), "PKG=1") {
		t.Errorf("the package's .envrc, which sources nothing, was blocked: %v\n%s\n%s", err, out, pkg)
	}
}

// TestReplayReview28MercurialConfig: a project kept in Mercurial (a
// folder claudebox runs in as in any other) has its repository's
// configuration in .hg/hgrc, whose [hooks] and [extensions] hg runs at
// every command there (hg status, and a prompt's hg id). The exit audit
// knew git's configuration, not Mercurial's: the session appends a
// pre-status hook to the user's .hg/hgrc. Host-side proof: after the
// session, the host's hg status runs nothing the session wrote.
func TestReplayReview28MercurialConfig(t *testing.T) {
	harness.RequireTool(t, "hg", "apt-get install mercurial")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "main.py"), "print(1)\n")
	h.Run(proj, nil, "hg", "init")
	h.Write(filepath.Join(proj, ".hg", "hgrc"), "[paths]\ndefault = https://hg.example.com/proj\n")
	h.Run(proj, nil, "hg", "--config", "ui.username=u <u@example.com>", "commit", "-q", "-A", "-m", "main")
	marker := h.Marker()
	out := h.Plant(proj, "the hook", `printf '[hooks]\npre-status = touch `+marker+`\n' >> .hg/hgrc`)
	h.RunsNothingPlanted(out, proj, nil, "hg", "status")
}
