package audit

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A config holding only what git init and git clone write, remotes and
// branches is inert; one key that runs or redirects, an include, a
// transport helper's URL, an unknown key or a syntax git refuses is not.
func TestInertConfig(t *testing.T) {
	clone := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n" +
		"[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
		"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
	for content, want := range map[string]bool{
		clone: true,
		"":    true,
		clone + "[core]\n\tfsmonitor = touch x\n":                  false,
		clone + "[core]\n\thooksPath = h\n":                        false,
		clone + "[core]\n\tworktree = /elsewhere\n":                false,
		clone + "[include]\n\tpath = ../x\n":                       false,
		clone + "[alias]\n\tst = status\n":                         false,
		clone + "[filter \"lfs\"]\n\tsmudge = x\n":                 false,
		clone + "[submodule \"s\"]\n\tupdate = !sh x\n":            false,
		clone + "[remote \"evil\"]\n\turl = ext::sh -c touch% x\n": false,
		clone + "[core]\n\tsomethingnew = 1\n":                     false,
		clone + "[extensions]\n\trefStorage = files\n":             true,
		clone + "[extensions]\n\trefStorage = reftable\n":          false,
		"[core\n": false,
	} {
		if got := mustInert(t, content); got != want {
			t.Errorf("inert(%q) = %v, want %v", content, got, want)
		}
	}
}

// mustInert writes content as a git directory's config and judges it.
func mustInert(t *testing.T, content string) bool {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "config"), []byte(content), 0o644))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err)
	defer unix.Close(fd)
	return inertConfig(fd, "config")
}
