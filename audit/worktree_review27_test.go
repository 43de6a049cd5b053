package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanWorktreeBesideProject: the user adds a worktree beside the
// project on the host while a session runs (git worktree add ../x). Its
// administrative files in the repository, gitdir and commondir, were
// taken for the session's and moved aside, which broke the worktree
// (git there said "not a git repository"). They are left where the
// worktree's .git file, outside the project, points back to them and
// they share the repository's git directory; a gitdir naming a
// directory whose .git points elsewhere, or a commondir of its own, is
// still a finding.
func TestScanWorktreeBesideProject(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	must(t, os.MkdirAll(root, 0o755))
	_, git := gitIn(t, root)
	git(".", "init", "-q", "-b", "main")
	git(".", "commit", "-q", "--allow-empty", "-m", "init")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git(".", "worktree", "add", "-q", filepath.Join(base, "beside"))
	git(".", "worktree", "add", "-q", filepath.Join(base, "other"))
	git(".", "worktree", "add", "-q", filepath.Join(base, "common"))
	admin := func(name, file string) string { return filepath.Join(root, ".git", "worktrees", name, file) }
	// The sandbox's: a worktree's admin pointing at a directory whose
	// .git names another, and a commondir of its own.
	must(t, os.WriteFile(filepath.Join(base, "other", ".git"), []byte("gitdir: /elsewhere\n"), 0o644))
	must(t, os.WriteFile(admin("common", "commondir"), []byte("/elsewhere/.git\n"), 0o644))
	r := Scan(root, since, nil, start, nil)
	want := []string{admin("common", "commondir"), admin("common", "gitdir"), admin("other", "commondir"), admin("other", "gitdir")}
	if slices.Sort(r.Found); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
