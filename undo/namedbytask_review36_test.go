package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// The checkout's own repository's hooks are asked wherever its
// configuration puts them: a core.hooksPath set in a file its config
// includes (a tracked .gitconfig), one in its worktree's config, and, for
// a linked worktree, the common git directory's hooks/ outside the
// checkout, which git runs from the worktree's top.
func TestNamedByRepositoryHooks(t *testing.T) {
	base := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, path), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	write("repo/.git/config", "[include]\n\tpath = ../.gitconfig\n")
	write("repo/.gitconfig", "[core]\n\thooksPath = scripts/git\n")
	write("repo/.git/hooks/post-merge", "sh merge/run\n")
	write("repo/.git/worktrees/wt/config.worktree", "[core]\n\thooksPath = ~/hooks\n")
	write("home/hooks/pre-push", "sh push/run\n")
	write("wt/scripts/git/pre-commit", "sh tools/check\n")
	write("wt/.git", "gitdir: ../repo/.git/worktrees/wt\n")
	common := filepath.Join(base, "repo", ".git")
	checkout := filepath.Join(base, "wt")
	p := instance.Project{Root: checkout, Checkout: checkout, GitDir: filepath.Join(common, "worktrees", "wt"), CommonDir: common}
	now := tree{repo: repositoryOf(p)}
	for path, want := range map[string]bool{"tools/check": true, "merge/run": true, "push/run": true, "other/x": false} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
	// Without the repository known, as before: none of them.
	if (tree{}).namedByTask(checkout, "merge/run") {
		t.Errorf("merge/run: named with no repository known")
	}
}

// A task file that runs a name it reads from a file as it runs (make's
// $(shell cat .name), $(file <.name), sh $(head -n 1 .name), a hook's
// cat .name from the top) names what that file holds; make's $< reads
// none (a compiled source is not read for names), and a file too large
// to read, or more than maxNameFiles read, names every path below.
func TestNamedByReadFile(t *testing.T) {
	checkout := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(checkout, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".name", "tools/gen\n")
	write("a/Makefile", "NAME := $(shell cat ../.name)\nOTHER := $(file <local.txt)\nx.o: x.c\n\tcc -c $< -o $@\n\tcat <<EOF\nEOF\n")
	write("a/local.txt", "out/run\n")
	write("a/x.c", "evil/c\n")
	write("b/justfile", "gen:\n    sh $(head -n 1 .top) \n")
	write("b/.top", "first\n")
	write(".git/hooks/pre-commit", "sh $(cat < .hook)\n")
	write(".hook", "hooked/run\n")
	now := tree{}
	for path, want := range map[string]bool{
		"a/tools/gen": true, "a/out/run": true, "b/first": true, "hooked/run": true,
		"tools/gen": false, "a/evil/c": false, "other/x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
	write("big/Makefile", "N := $(shell cat huge)\n")
	write("big/huge", strings.Repeat("x", maxTaskText+1))
	write("many/Makefile", func() string {
		var b strings.Builder
		for i := range maxNameFiles + 1 {
			fmt.Fprintf(&b, "X += $(shell cat f%d)\n", i)
		}
		return b.String()
	}())
	for _, path := range []string{"big/any/x", "many/any/x"} {
		if !now.namedByTask(checkout, path) {
			t.Errorf("%s: not named by a task file whose name files are not all read", path)
		}
	}
}

// A git driver run as python3 -m or -c (nbstripout's) imports from the
// work tree's top, where git runs it; one run isolated (-I, -P) or as a
// script does not, nor does any other program. The repository's
// configuration is read with what it includes, and the user's.
func TestPythonAtTop(t *testing.T) {
	for command, want := range map[string]bool{
		`"python3" -m nbstripout`: true, `/usr/bin/python3.11 -m nbstripout -t`: true, `python -c 'import x'`: true,
		`python3 -mnbstripout`: true, `!f() { python3 -m tool "$@"; }; f`: true,
		`python3 -I -m nbstripout`: false, `python3 -P -m x`: false, `python3 tools/clean.py -m`: false,
		`git-lfs filter-process`: false, `cat`: false, `pythonista -m x`: false,
	} {
		if got := pythonFromHere(command); got != want {
			t.Errorf("%s: %v, want %v", command, got, want)
		}
	}
	// At the top, and at a submodule's (sub), whose git status the top's
	// runs.
	now := tree{repo: repository{pythonAtTop: true}, repos: map[string]bool{"sub": true}}
	for path, want := range map[string]bool{
		"nbstripout.py": true, "json.pyc": true, "fast.cpython-311-x86_64-linux-gnu.so": true, "nbformat/__init__.py": true,
		"sub/json.py": true, "sub/nbformat/__init__.py": true,
		"nbformat/v4.py": false, "a/b/__init__.py": false, "README.md": false, "lib/json.py": false, "sub/lib/json.py": false,
	} {
		if got := now.importedAtTop(t.TempDir(), path); got != want {
			t.Errorf("%s: imported at the top %v, want %v", path, got, want)
		}
	}
	if (tree{repos: map[string]bool{"sub": true}}).importedAtTop(t.TempDir(), "json.py") {
		t.Errorf("json.py: imported at the top where no command runs Python there")
	}
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	git := filepath.Join(base, "repo", ".git")
	p := instance.Project{Root: filepath.Join(base, "repo"), Checkout: filepath.Join(base, "repo"), GitDir: git, CommonDir: git}
	if err := os.MkdirAll(git, 0o755); err != nil {
		t.Fatal(err)
	}
	if repositoryOf(p).pythonAtTop {
		t.Errorf("no configuration: Python at the top")
	}
	for f, text := range map[string]string{"repo/.git/config": "[include]\n\tpath = ../../drivers.inc\n", "drivers.inc": "[filter \"nbstripout\"]\n\tclean = \\\"python3\\\" -m nbstripout\n"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !repositoryOf(p).pythonAtTop {
		t.Errorf("an included filter running python3 -m: not Python at the top")
	}
}

// What the repository's git configuration, or a file it includes, or the
// user's, runs from the top names its ignored files as a hook's text does:
// an alias's !sh tools/lint, a filter's sh tools/clean.
func TestNamedByGitConfigCommands(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for f, text := range map[string]string{
		"repo/.git/config": "[alias]\n\tlint = !sh tools/lint\n[include]\n\tpath = ../../drivers.inc\n",
		"drivers.inc":      "[filter \"strip\"]\n\tclean = sh tools/clean\n",
		"home/.gitconfig":  "[alias]\n\tup = !sh scripts/up\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkout := filepath.Join(base, "repo")
	git := filepath.Join(checkout, ".git")
	now := tree{repo: repositoryOf(instance.Project{Root: checkout, Checkout: checkout, GitDir: git, CommonDir: git})}
	for path, want := range map[string]bool{"tools/lint": true, "tools/clean": true, "scripts/up": true, "sub/tools/lint": false, "other/x": false} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}
