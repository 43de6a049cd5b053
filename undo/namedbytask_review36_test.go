package undo

import (
	"os"
	"path/filepath"
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
