package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview36HookOfRepositoryConfig: the exit asked a git hook
// of the project's repository whether it names an ignored file only in
// .git/hooks, .githooks, .husky and the core.hooksPath .git/config itself
// names. A hooks path set in a file .git/config includes (a tracked
// .gitconfig a repository's setup has each clone include), and the hooks
// of a linked worktree's repository (its common git directory's hooks/,
// outside the checkout, run from the worktree's top), were not asked: a
// pre-commit hook there running sh tools/check, tools/ ignored, ran the
// session's tools/check at the host's git commit, git status showing
// nothing. Host-side proof: the host's git commit runs nothing planted.
func TestReplayReview36HookOfRepositoryConfig(t *testing.T) {
	commit := []string{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x"}
	for _, name := range []string{"included hooks path", "linked worktree"} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			repo := filepath.Join(h.Home, "code", "hooked")
			h.GitRepo(repo)
			h.Write(filepath.Join(repo, ".gitignore"), "/tools/\n")
			hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
			if name == "included hooks path" {
				h.Write(filepath.Join(repo, ".gitconfig"), "[core]\n\thooksPath = scripts/git\n")
				hook = filepath.Join(repo, "scripts", "git", "pre-commit")
				h.Run(repo, nil, "git", "config", "include.path", "../.gitconfig")
			}
			h.Write(hook, "#!/bin/sh\nsh tools/check\n")
			harness.Must(t, os.Chmod(hook, 0o755))
			h.Run(repo, nil, "git", "add", ".")
			h.Run(repo, nil, "git", append(commit[:4:4], "commit", "--no-verify", "-qm", "setup")...)
			proj := repo
			if name == "linked worktree" {
				proj = filepath.Join(h.Home, "code", "hooked-feature")
				h.Run(repo, nil, "git", "worktree", "add", "-q", "-b", "feature", proj)
			}
			out := plantUnseen(t, h, proj, "ignored script a hook runs", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/check`)
			if !strings.Contains(h.Run(proj, nil, "git", "check-ignore", "tools/check"), "tools/check") {
				t.Fatalf("tools/check is not ignored: the test proves nothing")
			}
			h.RunsNothingPlanted(out, proj, nil, "git", commit...)
		})
	}
}

// TestReplayReview36ScriptNamedByReadFile: a task file that runs a
// script by a name it reads from a file of the project at run time
// (make's NAME := $(shell cat .name), an npm script's sh $(cat .name),
// .name tracked and holding tools/gen) spells the name nowhere: the exit
// asked the task file's own words, and the tools/gen the session made
// where git ignores it (no #! line, extension or execute bit) stayed, git
// status showing nothing. Host-side proof: the host's make gen and npm
// run gen run nothing planted.
func TestReplayReview36ScriptNamedByReadFile(t *testing.T) {
	for name, c := range map[string]struct {
		tool, file, text string
		run              []string
	}{
		"make": {tool: "make", file: "Makefile", text: "NAME := $(shell cat .name)\ngen:\n\tsh $(NAME)\n", run: []string{"make", "gen"}},
		"npm":  {tool: "npm", file: "package.json", text: `{"name":"x","version":"1.0.0","scripts":{"gen":"sh $(cat < .name)"}}` + "\n", run: []string{"npm", "run", "gen"}},
	} {
		t.Run(name, func(t *testing.T) {
			harness.RequireTool(t, c.tool, "apt-get install "+c.tool)
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "named")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n")
			h.Write(filepath.Join(proj, ".name"), "tools/gen\n")
			h.Write(filepath.Join(proj, c.file), c.text)
			commitAll(h, proj, "tasks")
			out := plantUnseen(t, h, proj, "script named by a file's content", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/gen`)
			h.RunsNothingPlanted(out, proj, nil, c.run[0], c.run[1:]...)
		})
	}
}
