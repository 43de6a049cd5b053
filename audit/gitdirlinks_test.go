package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestScanGitDirLinks: a symlink the session made anywhere in a git
// directory is a finding, whatever its name is judged as as a file (a
// message git writes, the list of packs, a ref, which is only named, a
// pack's flag, a temporary object store); the host's own, there before,
// and the session's links in the work tree are not the git directory's.
func TestScanGitDirLinks(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".git/HEAD", ".git/index", ".git/COMMIT_EDITMSG", ".git/description", ".git/objects/info/packs", ".git/refs/heads/main", ".git/logs/HEAD", "src/a.txt"} {
		write(t, filepath.Join(root, p))
	}
	must(t, os.MkdirAll(filepath.Join(root, ".git/objects/pack"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, ".git/lost-found"), 0o755))
	must(t, os.Symlink("main", filepath.Join(root, ".git/refs/heads/old"))) // the host's own
	start := Take(root, time.Now().Add(time.Hour), nil, nil)
	since := mark(t, t.TempDir())
	must(t, unix.Mkfifo(filepath.Join(root, "src/data.pipe"), 0o600)) // nothing git opens
	links := []string{
		".git/COMMIT_EDITMSG", ".git/SQUASH_MSG", ".git/description", ".git/gc.log", ".git/index.lock",
		".git/info/refs", ".git/objects/info/packs", ".git/objects/pack/pack-1.keep", ".git/objects/tmp_objdir-x",
		".git/refs/heads/topic", ".git/logs/refs/heads/topic", ".git/lost-found/other",
	}
	for _, p := range links {
		path := filepath.Join(root, p)
		os.Remove(path)
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.Symlink("/home/alice/.bashrc", path))
	}
	must(t, os.Symlink("/home/alice/.bashrc", filepath.Join(root, "src/rc"))) // the work tree's
	r := Scan(root, since, nil, start, nil)
	var want []string
	for _, p := range links {
		want = append(want, filepath.Join(root, p))
	}
	slices.Sort(want)
	if !slices.Equal(r.Found, want) {
		t.Errorf("found %q; want %q", r.Found, want)
	}
}
