package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview37NestedRepositoryRunsIgnoredScript: the exit asked
// the git configuration of the project's own repository, and its hooks
// wherever that configuration put them, whether they name an ignored
// file; of a repository below the top only the hooks its .git/config
// itself names. A submodule keeps its configuration and hooks in the
// top's .git/modules (its .git a file naming them), and a nested
// repository may include its hooks path from a tracked file: a
// submodule's clean filter (sh tools/clean, which the top's git status
// runs in the submodule on a notebook whose time changed), a submodule's
// pre-commit hook and a nested repository's included hooks path, each
// running sh tools/check with tools/ ignored, ran the session's script at
// the host's git status and git commit, git status showing nothing.
// Host-side proof: they run nothing planted.
func TestReplayReview37NestedRepositoryRunsIgnoredScript(t *testing.T) {
	commit := []string{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x"}
	// submodule adds a submodule notes to proj, whose upstream ignores
	// tools/ and holds a notebook.
	submodule := func(h *harness.Host, proj string) string {
		up := filepath.Join(h.Home, "code", "notes-up")
		h.GitRepo(up)
		h.Write(filepath.Join(up, "analysis.ipynb"), "{}\n")
		h.Write(filepath.Join(up, ".gitignore"), "/tools/\n")
		harness.CommitAll(h, up, "notebook")
		h.Run(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "notes")
		harness.CommitAll(h, proj, "submodule")
		return filepath.Join(proj, "notes")
	}
	t.Run("submodule filter", func(t *testing.T) {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "code", "top")
		h.GitRepo(proj)
		sub := submodule(h, proj)
		h.Run(sub, nil, "git", "config", "filter.strip.clean", "sh tools/clean")
		h.Write(filepath.Join(proj, ".git", "modules", "notes", "info", "attributes"), "*.ipynb filter=strip\n")
		h.Run(proj, nil, "git", "status")
		out := harness.PlantUnseen(t, h, proj, "submodule's filter script", `sleep 2; cd notes && mkdir -p tools && printf 'touch `+h.Marker()+`\ncat\n' > tools/clean && touch analysis.ipynb`)
		h.RunsNothingPlanted(out, proj, nil, "git", "status")
	})
	t.Run("submodule hook", func(t *testing.T) {
		h := harness.NewHost(t)
		proj := filepath.Join(h.Home, "code", "top")
		h.GitRepo(proj)
		sub := submodule(h, proj)
		hook := filepath.Join(proj, ".git", "modules", "notes", "hooks", "pre-commit")
		h.Write(hook, "#!/bin/sh\nsh tools/check\n")
		harness.Must(t, os.Chmod(hook, 0o755))
		out := harness.PlantUnseen(t, h, proj, "submodule's hook script", `sleep 2; cd notes && mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/check`)
		h.RunsNothingPlanted(out, sub, nil, "git", commit...)
	})
	// A repository the top's git ignores (a clone of a dependency kept
	// beside the sources), whose hooks its own configuration names,
	// through a tracked file it includes, or lie in its .git/hooks: the
	// exit took what the session wrote there for installed dependencies,
	// and judged none of it.
	for _, included := range []bool{true, false} {
		name := "ignored nested repository's hook"
		if included {
			name = "nested repository's included hooks path"
		}
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "top")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/lib/\n")
			harness.CommitAll(h, proj, "ignore lib")
			sub := filepath.Join(proj, "lib")
			h.GitRepo(sub)
			h.Write(filepath.Join(sub, ".gitignore"), "/tools/\n")
			hook := filepath.Join(sub, ".git", "hooks", "pre-commit")
			if included {
				h.Write(filepath.Join(sub, ".gitconfig"), "[core]\n\thooksPath = scripts/git\n")
				hook = filepath.Join(sub, "scripts", "git", "pre-commit")
			}
			h.Write(hook, "#!/bin/sh\nsh tools/check\n")
			harness.Must(t, os.Chmod(hook, 0o755))
			h.Write(filepath.Join(sub, "app.py"), "print(1)\n")
			h.Run(sub, nil, "git", "add", ".")
			h.Run(sub, nil, "git", append(commit[:4:4], "commit", "--no-verify", "-qm", "hooks")...)
			if included {
				h.Run(sub, nil, "git", "config", "include.path", "../.gitconfig")
			}
			out := harness.PlantUnseen(t, h, proj, "nested repository's hook script", `sleep 2; (cd lib && mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/check && echo 'print(2)' > app.py)`)
			h.RunsNothingPlanted(out, sub, nil, "git", append(commit[:4:4], "commit", "-qam", "x")...)
			// The session's edit of a source the nested repository tracks,
			// which its git status shows, stays.
			if b, err := os.ReadFile(filepath.Join(sub, "app.py")); err != nil || string(b) != "print(2)\n" {
				t.Errorf("the session's edit of lib/app.py did not stay: %q, %v\n%s", b, err, out)
			}
		})
	}
}

// TestReplayReview37GitRunsNewScript: a clean filter of the repository's
// configuration runs a script by its path in the work tree (sh
// tools/strip.sh) that is not there at the launch (a setup step not yet
// run, a script removed): the launch guards only the scripts that exist,
// and the exit left the tools/strip.sh the session made, untracked, to
// git status to name. The host's git status, on a notebook whose time
// changed, ran it before naming it. Host-side proof: the host's git
// status runs nothing planted.
func TestReplayReview37GitRunsNewScript(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "filtered")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "analysis.ipynb"), "{}\n")
	harness.CommitAll(h, proj, "notebook")
	h.Run(proj, nil, "git", "config", "filter.strip.clean", "sh tools/strip.sh")
	h.Write(filepath.Join(proj, ".git", "info", "attributes"), "*.ipynb filter=strip\n")
	out := h.Plant(proj, "a new script git's filter runs", `sleep 2; mkdir -p tools && printf 'touch `+h.Marker()+`\ncat\n' > tools/strip.sh && touch analysis.ipynb`)
	h.RunsNothingPlanted(out, proj, nil, "git", "status")
}

// TestReplayReview37ScriptNamedByNamedFile: the exit asked a task file's
// own words whether it names an ignored file, and the words of a file it
// gives to cat, head or tail: a makefile whose recipe runs a tracked
// script (sh scripts/gen.sh) that runs tools/gen, or reads the name
// (read N < .name, then sh "$N"), and one that reads it with sed ($(shell
// sed -n 1p .name)), spell tools/gen nowhere; the tools/gen the session
// made where git ignores it (no #! line, extension or execute bit)
// stayed, git status showing nothing, and the host's make gen ran it.
// Host-side proof: the host's make gen runs nothing planted.
func TestReplayReview37ScriptNamedByNamedFile(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	for name, files := range map[string]map[string]string{
		"script the recipe runs": {"Makefile": "gen:\n\tsh scripts/gen.sh\n", "scripts/gen.sh": "sh tools/gen\n"},
		"name a script reads":    {"Makefile": "gen:\n\tsh scripts/gen.sh\n", "scripts/gen.sh": "read N < .name\nsh \"$N\"\n", ".name": "tools/gen\n"},
		"name sed reads":         {"Makefile": "NAME := $(shell sed -n 1p .name)\ngen:\n\tsh $(NAME)\n", ".name": "tools/gen\n"},
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "named")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n")
			for f, text := range files {
				h.Write(filepath.Join(proj, f), text)
			}
			harness.CommitAll(h, proj, "tasks")
			out := harness.PlantUnseen(t, h, proj, "script a named file names", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/gen`)
			h.RunsNothingPlanted(out, proj, nil, "make", "gen")
		})
	}
}
