package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A clone's token below plugins/ is never shown: every git directory the
// walk finds is hidden (its submodules' with it), each configuration's
// credential named, and a directory the
// walk cannot look through whole (too deep, too many directories) is
// hidden whole and named, rather than shown with what it did not see.
func TestPluginCredentialsFailClosed(t *testing.T) {
	home := t.TempDir()
	plugins := filepath.Join(home, ".claude", "plugins")
	token := "[remote \"origin\"]\n\turl = https://oauth2:glpat-SECRET@git.example/x.git\n"
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(plugins, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitDir := func(rel string) {
		write(rel+"/HEAD", "ref: refs/heads/main\n")
		write(rel+"/objects/info/packs", "")
		write(rel+"/config", token)
	}
	gitDir("marketplaces/corp/.git")
	gitDir("marketplaces/corp/.git/modules/lib")   // a submodule's
	gitDir("marketplaces/corp/.git/modules/a/b/c") // a nested submodule name
	gitDir("repos/bare.git")                       // a bare repository
	write("repos/bare.git/worktrees/w/HEAD", "ref: refs/heads/w\n")
	write("repos/bare.git/worktrees/w/commondir", "../..\n")
	write("repos/bare.git/worktrees/w/config.worktree", token)
	gitDir("cache/m/p/1.0/" + strings.Repeat("d/", gitDirsDepth) + ".git") // past the walk's depth
	if err := os.Symlink("/etc/hostname", filepath.Join(plugins, "marketplaces/corp/.git/modules/lib/config.worktree")); err != nil {
		t.Fatal(err)
	}
	entries := []string{filepath.Join(plugins, "marketplaces"), filepath.Join(plugins, "repos"), filepath.Join(plugins, "cache")}

	kept, own, leftOut := pluginCredentials(home, entries)

	if want := entries[:2]; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	var hiddenDirs []string
	for _, m := range own {
		hiddenDirs = append(hiddenDirs, strings.TrimPrefix(m.Dest, plugins+"/"))
	}
	if want := []string{"marketplaces/corp/.git", "repos/bare.git"}; !slices.Equal(hiddenDirs, want) {
		t.Errorf("hidden %q, want %q", hiddenDirs, want)
	}
	for _, rel := range []string{
		"marketplaces/corp/.git/config", "marketplaces/corp/.git/modules/lib/config",
		"marketplaces/corp/.git/modules/a/b/c/config", "repos/bare.git/config", "repos/bare.git/worktrees/w/config.worktree",
	} {
		if want := "remote.origin.url in ~/.claude/plugins/" + rel; !slices.Contains(leftOut, want) {
			t.Errorf("leftOut %q does not name %q", leftOut, want)
		}
	}
	if want := "all in ~/.claude/plugins/marketplaces/corp/.git/modules/lib/config.worktree"; !slices.Contains(leftOut, want) {
		t.Errorf("leftOut %q does not name the link %q", leftOut, want)
	}
	hidden := "all of ~/.claude/plugins/cache (claudebox cannot look through it whole"
	if !slices.ContainsFunc(leftOut, func(s string) bool { return strings.HasPrefix(s, hidden) }) {
		t.Errorf("leftOut %q does not name %q", leftOut, hidden)
	}
}

// Past its count of directories the walk gives up and says so.
func TestGitConfigsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range gitDirsCount {
		if err := os.Mkdir(filepath.Join(dir, strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "z", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dirs, _, whole := gitDirs(dir); whole {
		t.Errorf("gitDirs says it looked through %d directories whole (git directories %q)", gitDirsCount+1, dirs)
	}
}

// BenchmarkGitDirs walks a tree of as many directories as the walk looks
// through before it gives up: a launch's cost for each large entry of
// ~/.claude.
func BenchmarkGitDirs(b *testing.B) {
	dir := b.TempDir()
	for i := range gitDirsCount - 50 {
		if err := os.MkdirAll(filepath.Join(dir, strconv.Itoa(i%40), strconv.Itoa(i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, _, whole := gitDirs(dir); !whole {
			b.Fatal("gave up")
		}
	}
}
