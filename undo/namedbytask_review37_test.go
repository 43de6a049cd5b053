package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// writeTree writes files below base, each executable.
func writeTree(t *testing.T, base string, files map[string]string) {
	t.Helper()
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, path), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// noUserGitConfig leaves the test with no git configuration of the
// user's or the system's.
func noUserGitConfig(t *testing.T, home string) {
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// A repository below the top is asked as the top's is: the hooks its
// configuration names through a file it includes, a submodule's in the
// top's .git/modules (its .git a file naming them), and the commands its
// configuration runs (a submodule's filter, which the top's git status
// runs there).
func TestNamedByNestedRepository(t *testing.T) {
	base := t.TempDir()
	noUserGitConfig(t, filepath.Join(base, "home"))
	checkout := filepath.Join(base, "repo")
	writeTree(t, checkout, map[string]string{
		".git/config":                       "",
		"lib/.git/config":                   "[include]\n\tpath = ../.gitconfig\n",
		"lib/.gitconfig":                    "[core]\n\thooksPath = scripts/git\n",
		"lib/scripts/git/pre-commit":        "sh tools/check\n",
		"notes/.git":                        "gitdir: ../.git/modules/notes\n",
		".git/modules/notes/config":         "[filter \"strip\"]\n\tclean = sh tools/clean\n",
		".git/modules/notes/hooks/pre-push": "sh push/run\n",
	})
	git := filepath.Join(checkout, ".git")
	now := tree{repo: repositoryOf(instance.Project{Root: checkout, Checkout: checkout, GitDir: git, CommonDir: git}), repos: map[string]bool{"lib": true, "notes": true}}
	for path, want := range map[string]bool{
		"lib/tools/check": true, "notes/tools/clean": true, "notes/push/run": true,
		"tools/check": false, "lib/other/x": false, "notes/other/x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// What a command git's configuration runs names, the repository's and a
// submodule's, is found for a file git shows too: the words after the
// program's, or the program's where it has a slash; not an alias that
// runs git itself, nor a program looked up on PATH.
func TestRunByGit(t *testing.T) {
	base := t.TempDir()
	noUserGitConfig(t, filepath.Join(base, "home"))
	checkout := filepath.Join(base, "repo")
	writeTree(t, checkout, map[string]string{
		".git/config": "[filter \"strip\"]\n\tclean = sh tools/strip.sh\n[alias]\n\tst = status\n\tx = !sh scripts/x\n" +
			"[credential]\n\thelper = cache --timeout=60\n[merge]\n\tconflictStyle = diff3\n[remote \"origin\"]\n\turl = ../upstream/docs\n",
		"notes/.git":                "gitdir: ../.git/modules/notes\n",
		".git/modules/notes/config": "[diff \"nb\"]\n\ttextconv = tools/conv\n",
	})
	git := filepath.Join(checkout, ".git")
	now := tree{repo: repositoryOf(instance.Project{Root: checkout, Checkout: checkout, GitDir: git, CommonDir: git}), repos: map[string]bool{"notes": true}}
	for path, want := range map[string]bool{
		"tools/strip.sh": true, "scripts/x": true, "notes/tools/conv": true,
		"status/x": false, "cache/x": false, "sh": false, "diff3": false, "docs/x": false, "conv": false, "notes/strip.sh": false, "notes/scripts/x": false,
	} {
		if got := now.runByGit(checkout, path); got != want {
			t.Errorf("%s: run by git %v, want %v", path, got, want)
		}
	}
}

// A task file runs or reads what it names whatever the command: the
// words of each file it names (a script it runs, a file sed reads), and
// of those they name in turn (a script's read N < .name), are its own,
// from the task file's directory and from the file's; a compiled
// language's source, a binary file and an agent's memory are not read
// for names, and past maxFollowed files it names every path below it.
func TestNamedByNamedFile(t *testing.T) {
	checkout := t.TempDir()
	files := map[string]string{
		"Makefile":        "NAME := $(shell sed -n 1p .sed)\ngen:\n\tsh scripts/gen.sh\n\tsh scripts/own.sh\n\tcc -o app src/main.c\n\tcp data.bin out\n",
		"scripts/gen.sh":  "read N < .name\nsh \"$N\"\n",
		".name":           "tools/gen\n",
		".sed":            "out/run\n",
		"scripts/own.sh":  "cd \"$(dirname \"$0\")\" && sh ../helper/run\n",
		"src/main.c":      "int main() { return system(\"sh evil/c\"); }\n",
		"data.bin":        "\x00\x01 evil/bin\n",
		"doc/CLAUDE.md":   "see notes.txt\n",
		"doc/notes.txt":   "evil/memory\n",
		"many/Makefile":   "",
		"plain/Makefile":  "all:\n\techo hello\n",
		"plain/hello.txt": "evil/plain\n",
	}
	var many strings.Builder
	for i := range maxFollowed + 1 {
		name := fmt.Sprintf("f%d.txt", i)
		fmt.Fprintf(&many, "\tcat %s\n", name)
		files["many/"+name] = "x\n"
	}
	files["many/Makefile"] = "all:\n" + many.String()
	writeTree(t, checkout, files)
	now := tree{}
	for path, want := range map[string]bool{
		"tools/gen": true, "out/run": true, "helper/run": true, "scripts/helper/run": true, "many/any/x": true,
		"evil/c": false, "evil/bin": false, "doc/evil/memory": false, "evil/memory": false, "plain/evil/plain": false, "other/x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}
