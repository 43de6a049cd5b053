package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanMadeAtGitTopAndInfo: what the session made at a git directory's
// top by a name not git's own (a folder, a file, a link), and in its info
// by a name not git's own, is a finding: each is shown empty, a mount
// each, at the next launch, and past 1,024 in one folder every later
// launch refused. What was there at the start stays, changed or not, and
// so does what git makes by its own names (a rebase's state, info's
// exclude and sparse-checkout).
func TestScanMadeAtGitTopAndInfo(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		".git/HEAD", ".git/config", ".git/objects/x", ".git/info/exclude", ".git/info/mine", ".git/mine/x", ".git/mine.txt",
		".git/worktrees/wt/HEAD", ".git/worktrees/wt/commondir", ".git/worktrees/wt/gitdir", "info/keep.md",
	} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{
		".git/pad1/x", ".git/pad2", ".git/info/pad3", ".git/info/sparse-checkout", ".git/info/mine", ".git/mine/y", ".git/mine.txt",
		".git/rebase-merge/head-name", ".git/worktrees/wt/pad4/x", ".git/worktrees/wt/info/pad5", "info/new.md",
	} {
		write(t, filepath.Join(root, p))
	}
	if err := os.Mkdir(filepath.Join(root, ".git/pad6"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, ".git/info/link")); err != nil {
		t.Fatal(err)
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	// mine/ and mine.txt were the user's: a file the session wrote in an
	// unknown folder is host-run (mine/y), one at the top is judged as it
	// was.
	want := []string{".git/info/link", ".git/info/pad3", ".git/mine.txt", ".git/mine/y", ".git/pad1", ".git/pad2", ".git/pad6", ".git/worktrees/wt/info/pad5", ".git/worktrees/wt/pad4"}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}
