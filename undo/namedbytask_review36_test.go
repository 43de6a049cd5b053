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
// cat .name from the top) names what that file holds; make's $< and a
// here-document read none, and a file too large to read, or more than
// maxNameFiles read, names every path below.
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
	write("a/EOF", "evil/doc\n")
	write("b/justfile", "gen:\n    sh $(head -n 1 .top) \n")
	write("b/.top", "first\n")
	write(".git/hooks/pre-commit", "sh $(cat < .hook)\n")
	write(".hook", "hooked/run\n")
	now := tree{}
	for path, want := range map[string]bool{
		"a/tools/gen": true, "a/out/run": true, "b/first": true, "hooked/run": true,
		"tools/gen": false, "a/evil/c": false, "a/evil/doc": false, "other/x": false,
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
