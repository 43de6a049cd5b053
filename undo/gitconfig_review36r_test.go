package undo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGitConfigValuesInIncludeOrder: an included file's values stand
// where its include does, as git reads them, so that the last is git's;
// every core.hooksPath is asked, an includeIf's whatever its condition.
func TestGitConfigValuesInIncludeOrder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	write := func(rel, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitconfig.d/base", "[core]\n\thooksPath = ~/base-hooks\n\texcludesFile = ~/base-ignore\n")
	write(".gitconfig.d/work", "[core]\n\thooksPath = ~/work-hooks\n")
	write(".gitconfig", "[include]\n\tpath = .gitconfig.d/base\n[core]\n\thooksPath = ~/own-hooks\n\texcludesFile = ~/own-ignore\n"+
		"[includeIf \"gitdir:~/work/\"]\n\tpath = ~/.gitconfig.d/work\n")
	got := gitConfigValues([]string{filepath.Join(home, ".gitconfig")}, "core.excludesfile")
	if want := []string{"~/base-ignore", "~/own-ignore"}; !slices.Equal(got, want) {
		t.Errorf("core.excludesFile's values = %q, want %q", got, want)
	}
	dirs := globalHooksDirs()
	for _, d := range []string{"base-hooks", "own-hooks", "work-hooks"} {
		if !slices.Contains(dirs, filepath.Join(home, d)) {
			t.Errorf("globalHooksDirs() = %q, want %s among them", dirs, d)
		}
	}
}
