package undo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// Untracked files are hidden from git status where any configuration git
// reads for the repository says status.showUntrackedFiles = no: the
// repository's, a file it includes, its worktree's, the user's (through a
// link, as a dotfiles manager leaves it); normal and all hide nothing.
func TestUntrackedHidden(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		link  bool
		want  bool
	}{
		"none":     {files: map[string]string{"repo/.git/config": "[core]\n\tbare = false\n"}},
		"normal":   {files: map[string]string{"repo/.git/config": "[status]\n\tshowUntrackedFiles = normal\n"}},
		"repo":     {files: map[string]string{"repo/.git/config": "[status]\n\tshowUntrackedFiles = no\n"}, want: true},
		"false":    {files: map[string]string{"repo/.git/config": "[status]\n\tshowuntrackedfiles = false\n"}, want: true},
		"included": {files: map[string]string{"repo/.git/config": "[include]\n\tpath = ../../quiet.inc\n", "quiet.inc": "[status]\n\tshowUntrackedFiles = No\n"}, want: true},
		"worktree": {files: map[string]string{"repo/.git/config.worktree": "[status]\n\tshowUntrackedFiles = no\n"}, want: true},
		"global":   {files: map[string]string{"home/.gitconfig": "[status]\n\tshowUntrackedFiles = no\n"}, want: true},
		"linked":   {files: map[string]string{"home/dotfiles/gitconfig": "[status]\n\tshowUntrackedFiles = no\n"}, link: true, want: true},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, text := range c.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.MkdirAll(filepath.Join(dir, "home"), 0o755)
			if c.link {
				if err := os.Symlink("dotfiles/gitconfig", filepath.Join(dir, "home", ".gitconfig")); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("HOME", filepath.Join(dir, "home"))
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			git := filepath.Join(dir, "repo", ".git")
			p := instance.Project{Root: filepath.Join(dir, "repo"), Checkout: filepath.Join(dir, "repo"), GitDir: git, CommonDir: git}
			if got := untrackedHidden(p); got != c.want {
				t.Errorf("hidden %v, want %v", got, c.want)
			}
		})
	}
}
