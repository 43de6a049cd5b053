package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview43WorkspaceMemberInstallScript: npm takes every folder
// its workspaces' glob (packages/*) matches for one of its packages, runs
// each one's install scripts at npm install and npm ci, the command the
// exit names to install node_modules again, and links each one's bin
// into node_modules/.bin, where a member's jest took the place of the
// dependency's that npm test runs; git shows the session's members only
// as untracked folders, packages like any other. Host-side proof: the
// host's npm install and npm test run nothing planted.
func TestReplayReview43WorkspaceMemberInstallScript(t *testing.T) {
	npm := harness.RequireTool(t, "npm", "https://nodejs.org")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\npackage-lock.json\n")
	h.Write(filepath.Join(proj, "package.json"), `{"name": "root", "private": true, "workspaces": ["packages/*"], "scripts": {"test": "jest"}, "devDependencies": {"jest": "file:tools/jest"}}`+"\n")
	h.Write(filepath.Join(proj, "packages", "app", "package.json"), `{"name": "app", "version": "1.0.0"}`+"\n")
	h.Write(filepath.Join(proj, "tools", "jest", "package.json"), `{"name": "jest", "version": "29.0.0", "bin": {"jest": "cli.js"}}`+"\n")
	h.Write(filepath.Join(proj, "tools", "jest", "cli.js"), "#!/usr/bin/env node\n")
	harness.CommitAll(h, proj, "workspace")
	touch := `require("fs").writeFileSync("` + h.Marker() + `", "")`
	out := h.Plant(proj, "workspace members' install script and bin", `mkdir -p packages/evil packages/cli
		echo '{"name": "evil", "version": "1.0.0", "scripts": {"postinstall": "touch `+h.Marker()+`"}}' > packages/evil/package.json
		echo '{"name": "cli", "version": "1.0.0", "bin": {"jest": "e.js"}}' > packages/cli/package.json
		printf '#!/usr/bin/env node\n%s\n' '`+touch+`' > packages/cli/e.js`)
	env := []string{"npm_config_cache=" + filepath.Join(h.Base, "npm-cache"), "npm_config_update_notifier=false", "npm_config_registry=http://127.0.0.1:9/"}
	h.RunsNothingPlanted(out, proj, env, npm, "install", "--offline", "--no-audit", "--no-fund")
	h.RunsNothingPlanted(out, proj, env, npm, "test")
}

// TestReplayReview43BuildDefinitions: Gradle builds buildSrc, and runs
// its build script, at every build of the project, any task, as an IDE
// opening the folder loads the build; sbt compiles and runs every *.sbt
// at the top and the build definition in project/ (*.scala, *.sbt, and
// project/project/, the build of the build) at its start and as Metals
// or IntelliJ imports the build. git shows each only as a new file.
// Neither tool is installed here: the host-side proof is that none of
// what the session wrote is where the host's tool reads it.
func TestReplayReview43BuildDefinitions(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "settings.gradle.kts"), "rootProject.name = \"app\"\n")
	h.Write(filepath.Join(proj, "build.sbt"), "name := \"app\"\n")
	h.Write(filepath.Join(proj, "project", "build.properties"), "sbt.version=1.10.0\n")
	harness.CommitAll(h, proj, "builds")
	run := `Runtime.getRuntime.exec(Array("touch", "` + h.Marker() + `"))`
	planted := []string{"buildSrc/build.gradle.kts", "buildSrc/src/main/kotlin/Evil.kt", "local.sbt", "project/Evil.scala", "project/plugins.sbt", "project/project/Meta.scala"}
	out := h.Plant(proj, "build definitions", `mkdir -p buildSrc/src/main/kotlin project/project
		echo 'Runtime.getRuntime().exec(arrayOf("touch", "`+h.Marker()+`"))' > buildSrc/build.gradle.kts
		echo 'object Evil { init { Runtime.getRuntime().exec(arrayOf("touch", "`+h.Marker()+`")) } }' > buildSrc/src/main/kotlin/Evil.kt
		echo 'val evil = `+run+`' > local.sbt
		echo 'object Evil { `+run+` }' > project/Evil.scala
		echo 'val evil = `+run+`' > project/plugins.sbt
		echo 'object Meta { `+run+` }' > project/project/Meta.scala`)
	for _, p := range planted {
		if _, err := os.Lstat(filepath.Join(proj, p)); err == nil {
			t.Errorf("%s, which the session wrote, is where the host's build tool reads it:\n%s", p, out)
		}
	}
}

// TestReplayReview43GradleBuildScripts: Gradle evaluates the build
// script of every project its settings include, as a settings.gradle.kts
// including each folder of modules/ takes a new one, and builds a build
// its settings include (includeBuild("build-logic"), the layout Gradle's
// documentation advises in place of buildSrc) with its sources, at any
// task and as an IDE loads the build. git shows each only as a new file.
// Gradle is not installed here: the host-side proof is that none of what
// the session wrote is where Gradle reads it.
func TestReplayReview43GradleBuildScripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "settings.gradle.kts"), "pluginManagement { includeBuild(\"build-logic\") }\nfile(\"modules\").listFiles()?.forEach { include(\"modules:\" + it.name) }\n")
	h.Write(filepath.Join(proj, "build-logic", "settings.gradle.kts"), "rootProject.name = \"build-logic\"\n")
	h.Write(filepath.Join(proj, "modules", "app", "build.gradle.kts"), "plugins { java }\n")
	harness.CommitAll(h, proj, "builds")
	planted := []string{"modules/evil/build.gradle.kts", "build-logic/src/main/kotlin/Evil.kt", "build-logic/src/main/kotlin/evil.gradle.kts"}
	out := h.Plant(proj, "Gradle build scripts", `mkdir -p modules/evil build-logic/src/main/kotlin
		echo 'Runtime.getRuntime().exec(arrayOf("touch", "`+h.Marker()+`"))' > modules/evil/build.gradle.kts
		echo 'object Evil { init { Runtime.getRuntime().exec(arrayOf("touch", "`+h.Marker()+`")) } }' > build-logic/src/main/kotlin/Evil.kt
		echo 'Runtime.getRuntime().exec(arrayOf("touch", "`+h.Marker()+`"))' > build-logic/src/main/kotlin/evil.gradle.kts`)
	for _, p := range planted {
		if _, err := os.Lstat(filepath.Join(proj, p)); err == nil {
			t.Errorf("%s, which the session wrote, is where the host's Gradle reads it:\n%s", p, out)
		}
	}
}
