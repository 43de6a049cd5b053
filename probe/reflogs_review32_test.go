package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/project"
)

// A token in a URL's path (a registry's: https://host/TOKEN/x.git) in
// git's record of a command is taken out of the reflog's copy as a URL's
// password is; a URL whose path reads as words leaves the log as it is.
func TestReflogURLPathTokenTakenOut(t *testing.T) {
	const ident = "a1 b2 Alice <alice@example.com> 1 +0000\t"
	for _, c := range []struct{ log, want string }{
		{ident + "pull https://dl.example.com/Zk3wQp9LmT2v/acme/x.git main: Fast-forward\n", ident + "pull https://dl.example.com/*/acme/x.git main: Fast-forward\n"},
		{ident + "pull https://bob:pw@dl.example.com/go/Zk3wQp9LmT2v-x: Merge made\n", ident + "pull https://dl.example.com/go/*: Merge made\n"},
		{"a1\t\tbranch 'main' of https://dl.example.com/Zk3wQp9LmT2v/x\n", "a1\t\tbranch 'main' of https://dl.example.com/*/x\n"},
		{ident + "clone: from https://dl.example.com/Zk3wQp9LmT2v/x.git\n" + ident + "commit: a\n", ident + "clone: from https://dl.example.com/*/x.git\n" + ident + "commit: a\n"},
		{ident + "pull https://github.com/acme/tools-v2.git main: Fast-forward\n", ""},
		{ident + "commit: fix https://github.com/acme/app/issues/1234\n", ""},
	} {
		got, ok := reflogWithout([]byte(c.log))
		if c.want == "" {
			if ok {
				t.Errorf("%q: copied as %q, want it left as it is", c.log, got)
			}
			continue
		}
		if !ok || string(got) != c.want {
			t.Errorf("%q:\ngot  %q (%v)\nwant %q", c.log, got, ok, c.want)
		}
	}
}

// What is not git's own in a git directory's info, at the top of a linked
// worktree's folder and beside those folders in worktrees is shown empty;
// git's own there is not.
func TestGitInfoAndWorktreesNotOwn(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	for _, f := range []string{
		"HEAD", "info/exclude", "info/attributes", "info/sparse-checkout.lock", "info/credentials", "info/deploy/token",
		"worktrees/notes.txt", "worktrees/w/HEAD", "worktrees/w/gitdir", "worktrees/w/commondir", "worktrees/w/logs/HEAD",
		"worktrees/w/info/sparse-checkout", "worktrees/w/credentials", "worktrees/w/info/token",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(git, f)), 0o755)
		os.WriteFile(filepath.Join(git, f), nil, 0o644)
	}
	entries, leftOut, crowded := gitDirNotOwn(project.Project{GitDir: git, CommonDir: git}, nil)
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s %v", strings.TrimPrefix(e.Path, git+"/"), e.Dir))
	}
	slices.Sort(got)
	want := []string{"info/credentials false", "info/deploy true", "worktrees/notes.txt false", "worktrees/w/credentials false", "worktrees/w/info/token false"}
	if !slices.Equal(got, want) || len(leftOut) != len(want) || crowded != "" {
		t.Errorf("not git's own %q (%q, crowded %q), want %q", got, leftOut, crowded, want)
	}
}

// TestInfoCrowdedNamed: 1,100 files a session made in a git directory's
// info had every later launch refuse naming the git directory, whose ls
// -a showed nothing planted; the refusal names the info folder.
func TestInfoCrowdedNamed(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	os.MkdirAll(filepath.Join(git, "info"), 0o755)
	for i := range MaxGitDirEntries + 76 {
		os.WriteFile(filepath.Join(git, "info", fmt.Sprintf("p%05d", i)), nil, 0o644)
	}
	if _, _, crowded := gitDirNotOwn(project.Project{GitDir: git, CommonDir: git}, nil); crowded != filepath.Join(git, "info") {
		t.Errorf("crowded %q, want %s", crowded, filepath.Join(git, "info"))
	}
}
