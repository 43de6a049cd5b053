package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanWorktreesLinks: what is not a directory in a git directory's
// worktrees/ is a finding (git worktree prune removes an entry through
// a link, emptying the folder it leads to), and so is a folder the
// session made there without the gitdir file git writes in each (past
// 128 entries the next launch refuses); a linked worktree's own
// directory, and what the session wrote beneath it, are judged as
// before.
func TestScanWorktreesLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, p := range []string{".git/HEAD", ".git/config", ".git/objects/x", ".git/worktrees/w/HEAD", ".git/worktrees/w/gitdir", "sub/.git/HEAD"} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{".git/worktrees/zz", "sub/.git/worktrees"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.Symlink(outside, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, ".git/worktrees/file"))
	write(t, filepath.Join(root, ".git/worktrees/w/logs/HEAD"))
	os.MkdirAll(filepath.Join(root, ".git/worktrees/empty/logs"), 0o755)
	write(t, filepath.Join(root, ".git/worktrees/made/gitdir"))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{".git/worktrees/empty", ".git/worktrees/file", ".git/worktrees/zz", "sub/.git/worktrees"}; !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}
