package hostruns

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25MergeStrategy: git rebase --continue and git
// cherry-pick --continue run the merge strategy the operation's state
// names (rebase-merge/strategy, sequencer/opts) as the program git
// merge-<strategy>, which a slash makes a path in the work tree (x/evil
// runs git-merge-x/evil). The exit audit judged a todo list by its exec
// lines and passed the rest of the state: in a nested repository, where
// no guard stands, the session stops a rebase and a cherry-pick and
// names its own strategy. Host-side proof: the host's git rebase
// --continue and git cherry-pick --continue there run nothing the
// session wrote, and git status still says what is in progress.
func TestReplayReview25MergeStrategy(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/lib/\n/dep/\n")
	harness.CommitAll(h, proj, "nested")
	lib, dep := filepath.Join(proj, "lib"), filepath.Join(proj, "dep")
	h.GitRepo(lib)
	h.Run(lib, nil, "git", "checkout", "-qb", "other")
	h.Write(filepath.Join(lib, "b"), "b\n")
	harness.CommitAll(h, lib, "b")
	h.Run(lib, nil, "git", "checkout", "-q", "-")
	h.Write(filepath.Join(lib, "c"), "c\n")
	harness.CommitAll(h, lib, "c")
	h.GitRepo(dep)
	h.Write(filepath.Join(dep, "b"), "1\n")
	harness.CommitAll(h, dep, "b")
	h.Run(dep, nil, "git", "checkout", "-qb", "conf")
	h.Write(filepath.Join(dep, "b"), "x\n")
	harness.CommitAll(h, dep, "bx")
	h.Write(filepath.Join(dep, "f"), "f\n")
	harness.CommitAll(h, dep, "f")
	h.Run(dep, nil, "git", "checkout", "-q", "-")
	h.Write(filepath.Join(dep, "b"), "2\n")
	harness.CommitAll(h, dep, "b2")
	marker := h.Marker()
	evil := `mkdir git-merge-x && printf '#!/bin/sh\ntouch ` + marker + `.%s\nexit 2\n' "$1" > git-merge-x/evil && chmod +x git-merge-x/evil`
	out := harness.PlantUnseen(t, h, proj, "merge strategy", `
		export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
		plant() { `+evil+`; }
		cd lib
		GIT_SEQUENCE_EDITOR="sed -i 1ibreak" git rebase -q -i other >/dev/null 2>&1 || true
		test -f .git/rebase-merge/git-rebase-todo
		echo x/evil > .git/rebase-merge/strategy
		plant rebase
		cd ../dep
		git cherry-pick conf~1 conf >/dev/null 2>&1 || true
		test -f .git/sequencer/todo
		echo resolved > b && git add b
		printf '[options]\n\tstrategy = x/evil\n' > .git/sequencer/opts
		plant cherry-pick
		cd ..`)
	if status := h.Run(lib, nil, "git", "status"); !strings.Contains(status, "rebase in progress") {
		t.Errorf("the host's git status no longer shows the rebase the session stopped:\n%s", status)
	}
	rebased, _ := h.Command(lib, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "rebase", "--continue").CombinedOutput()
	picked, _ := h.Command(dep, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "core.editor=true", "cherry-pick", "--continue").CombinedOutput()
	for _, what := range []string{"rebase", "cherry-pick"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git %s --continue ran the strategy the session named:\n%s\n%s%s", what, out, rebased, picked)
		}
	}
	for _, p := range []string{filepath.Join(lib, ".git", "rebase-merge", "strategy"), filepath.Join(dep, ".git", "sequencer", "opts")} {
		if !strings.Contains(out, p) {
			t.Errorf("the end did not name %s:\n%s", p, out)
		}
	}
}

// TestReplayReview25NestedTaskFileImports: in a monorepo the host runs
// just and task in a package's directory, where they read the justfile or
// Taskfile there and what it imports (import? 'justfile.local', a
// Taskfile's includes), often a file git ignores. The exit audit read the
// imports of the top's alone, and passed an include by a template's path
// ({{.TASKFILE_DIR}}/local.yml): the session writes both. Host-side
// proof: git status says nothing, the files are moved aside, and the
// host's just there (where it is installed) runs nothing the session
// wrote.
func TestReplayReview25NestedTaskFileImports(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "justfile.local\nlocal.yml\n")
	h.Write(filepath.Join(proj, "pkg", "api", "justfile"), "import? 'justfile.local'\n\nbuild:\n\t@echo built\n")
	h.Write(filepath.Join(proj, "web", "Taskfile.yml"), "version: '3'\nincludes:\n  local:\n    taskfile: '{{.TASKFILE_DIR}}/local.yml'\n    optional: true\ntasks:\n  build:\n    cmds: [echo built]\n")
	harness.CommitAll(h, proj, "monorepo")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "imported task files", `
		printf 'x := `+"`touch "+marker+"`"+`\n' > pkg/api/justfile.local
		printf 'version: "3"\ntasks:\n  default:\n    cmds: [touch `+marker+`]\n' > web/local.yml`)
	for _, p := range []string{filepath.Join(proj, "pkg", "api", "justfile.local"), filepath.Join(proj, "web", "local.yml")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is left in place:\n%s", p, out)
		}
	}
	if _, err := exec.LookPath("just"); err == nil {
		h.RunsNothingPlanted(out, filepath.Join(proj, "pkg", "api"), nil, "just", "build")
	}
}

// TestReplayReview25MakeIncludeDir: a makefile that gives its sub-makes
// a directory to include from (MAKEFLAGS += -Iconf, as the kernel's
// --include-dir) has them read there what they include and do not find
// where they run: -include config.local reads conf/config.local, which
// git ignores. The exit audit judged an include from the makefile's
// directory alone: the session writes conf/config.local. Host-side
// proof: git status says nothing, and the host's make runs nothing the
// session wrote.
func TestReplayReview25MakeIncludeDir(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "config.local\n")
	h.Write(filepath.Join(proj, "Makefile"), "MAKEFLAGS += -Iconf\nall:\n\t@$(MAKE) -s -f build.mk\n")
	h.Write(filepath.Join(proj, "build.mk"), "-include config.local\nall:\n\t@echo built\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "included config", `mkdir -p conf && printf '$(shell touch `+marker+`)\n' > conf/config.local`)
	h.RunsNothingPlanted(out, proj, nil, "make")
}

// TestReplayReview25IrbStartupFiles: irb (rails console, bundle console)
// runs the first startup file it finds where it starts: .irbrc, which the
// registry knew, and irb.rc, _irbrc, $irbrc and .config/irb/irbrc, which
// it did not. The session writes those four. Host-side proof: the host's
// irb there runs nothing the session wrote.
func TestReplayReview25IrbStartupFiles(t *testing.T) {
	harness.RequireTool(t, "irb", "apt-get install ruby")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	marker := h.Marker()
	h.Plant(proj, "the startup files", `mkdir -p .config/irb && for f in irb.rc _irbrc '$irbrc' .config/irb/irbrc; do printf 'File.write("`+marker+`", %s)\n' "'$f'" > "$f"; done`)
	for range 4 { // irb runs the first it finds: each, once the one before is gone
		cmd := h.Command(proj, nil, "irb")
		cmd.Stdin = strings.NewReader("exit\n")
		ran, _ := cmd.CombinedOutput()
		b, err := os.ReadFile(marker)
		if err != nil {
			break
		}
		t.Errorf("the host's irb ran the %s the session wrote:\n%s", b, ran)
		os.Remove(marker)
		os.Remove(filepath.Join(proj, string(b)))
	}
}

// TestReplayReview25EnvrcPathAdd: an .envrc's PATH_add bin (path_add
// PATH tools) puts a directory of the project first on the PATH of the
// host's shell there, and every command typed in it after, git status
// first, runs what that directory holds by the command's name. The exit
// audit judged an .envrc's words as files, not as directories, and a new
// file git does not ignore as one git status shows: the session writes
// bin/git and tools/ls. Host-side proof: the host's git status and ls
// under direnv, the .envrc allowed before, run nothing the session wrote.
func TestReplayReview25EnvrcPathAdd(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "PATH_add bin\npath_add PATH \"$PWD/tools\"\n")
	h.Write(filepath.Join(proj, "bin", "fmt.sh"), "#!/bin/sh\nexit 0\n")
	h.Write(filepath.Join(proj, "tools", "lint.sh"), "#!/bin/sh\nexit 0\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the programs", `for p in bin/git tools/ls; do printf '#!/bin/sh\ntouch `+marker+`\n' > $p && chmod +x $p; done`)
	for _, command := range []string{"git status", "ls"} {
		h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "sh", "-c", command)
	}
}

// TestReplayReview25EnvrcSourcesTracked: direnv runs what an .envrc
// sources at every prompt where it changed (source_env watches the file)
// and at every cd into the project, before any command typed there, git
// status first, shows the change: the exit audit judged what an .envrc
// sources only where git does not track it. The session rewrites the
// project's tracked scripts/env.sh and lib/more.sh. Host-side proof: the
// host's direnv there, the .envrc allowed before, runs nothing the
// session wrote, and git status shows the files as deleted, moved aside.
func TestReplayReview25EnvrcSourcesTracked(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env scripts/env.sh\nsource lib/more.sh\n")
	h.Write(filepath.Join(proj, "scripts", "env.sh"), "export A=1\n")
	h.Write(filepath.Join(proj, "lib", "more.sh"), "export B=1\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.Plant(proj, "the sourced files", `printf 'touch `+marker+`.env\n' >> scripts/env.sh && printf 'touch `+marker+`.more\n' >> lib/more.sh`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "true").CombinedOutput()
	for _, what := range []string{"env", "more"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's direnv ran the %s.sh the session rewrote:\n%s\n%s", what, out, ran)
		}
	}
	if status := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(status, " D scripts/env.sh") || !strings.Contains(status, " D lib/more.sh") {
		t.Errorf("git status does not show the sourced files moved aside:\n%s", status)
	}
}

// TestReplayReview25GemfileEvalJoined: a Gemfile evaluates its plugins'
// gem lists by a path it joins (Dir.glob(File.join(__dir__, "plugins",
// "*", "deps")) { eval_gemfile it }), git ignoring the plugins. The exit
// audit judged what a Gemfile names by each string literal, a file's
// name by its own, and an ignored file by its mode, #! and extension: the
// session writes plugins/evil/deps. Host-side proof: git status says
// nothing, and the host's bundle check runs nothing the session wrote.
func TestReplayReview25GemfileEvalJoined(t *testing.T) {
	harness.RequireTool(t, "bundle", "apt-get install ruby-bundler")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Gemfile"), "source \"https://rubygems.org\"\nDir.glob(File.join(__dir__, \"plugins\", \"*\", \"deps\")).each { |f| eval_gemfile f }\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/plugins/\n/Gemfile.lock\n")
	harness.CommitAll(h, proj, "gems")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "plugin's gem list", `mkdir -p plugins/evil && printf 'File.write("`+marker+`", "")\n' > plugins/evil/deps`)
	h.RunsNothingPlanted(out, proj, nil, "bundle", "check")
}

// TestReplayReview25TerraformOverride: terraform plan loads every *.tf
// and *.tf.json of the working directory, and merges override.tf and
// *_override.tf (their JSON forms too) over what the others say, which
// Terraform's own .gitignore template ignores: one that overrides a data
// source's external program runs it at the host's next plan. The exit
// audit judged an ignored file by its mode, #! and extension, and .tf
// was none: the session writes local_override.tf and
// ci_override.tf.json, each overriding an output. Host-side proof: git
// status says nothing, and the host's terraform plan reads nothing the
// session wrote.
func TestReplayReview25TerraformOverride(t *testing.T) {
	harness.RequireTool(t, "terraform", "install terraform")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "main.tf"), "output \"a\" {\n  value = \"fine\"\n}\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".terraform/\n*.tfstate\noverride.tf\noverride.tf.json\n*_override.tf\n*_override.tf.json\n")
	harness.CommitAll(h, proj, "infra")
	h.Run(proj, nil, "terraform", "init", "-input=false", "-no-color")
	out := harness.PlantUnseen(t, h, proj, "override files", `
		printf 'output "a" {\n  value = "PLANTED"\n}\n' > local_override.tf
		printf '{"output": {"a": {"value": "PLANTED JSON"}}}\n' > ci_override.tf.json`)
	plan, _ := h.Command(proj, nil, "terraform", "plan", "-input=false", "-no-color").CombinedOutput()
	if strings.Contains(string(plan), "PLANTED") || !strings.Contains(string(plan), `"fine"`) {
		t.Errorf("the host's terraform plan read the overrides the session wrote:\n%s\n%s", out, plan)
	}
}
