package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
)

// A reflog whose message holds a URL's credential is copied without it,
// each local branch's, each worktree's and FETCH_HEAD; an identity's
// email is no URL's user; a link the sandbox made in the git directory
// is not followed.
func TestReflogCopies(t *testing.T) {
	dir := t.TempDir()
	git := filepath.Join(dir, "p", ".git")
	const ident = "a1 b2 Alice <alice@example.com> 1 +0000\t"
	write := func(rel, text string) {
		p := filepath.Join(git, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("logs/HEAD", ident+"commit: a@b\n"+ident+"pull https://bob:TOKEN1@git.example.com/x main: Fast-forward\n")
	write("logs/refs/heads/feature/x", ident+"pull git+ssh://me:TOKEN2@host/x: Merge made\n")
	write("logs/refs/heads/main", ident+"commit: mail alice@example.com\n")
	write("worktrees/w/logs/HEAD", ident+"pull https://ghp_TOKEN3aaaaaaaaaaaaaaaaaaaa@github.com/x: Fast-forward\n")
	write("FETCH_HEAD", "a1\t\tbranch 'main' of https://u:TOKEN4@host/x\n")
	outside := filepath.Join(dir, "outside")
	os.WriteFile(outside, []byte(ident+"pull https://bob:TOKEN5@h/x\n"), 0o644)
	os.Symlink(outside, filepath.Join(git, "logs", "refs", "heads", "evil"))
	copies, leftOut, _ := reflogCopies(project.Project{GitDir: git, CommonDir: git}, nil)
	var paths []string
	for _, c := range copies {
		paths = append(paths, strings.TrimPrefix(c.Path, git+"/"))
		if strings.Contains(c.Content, "TOKEN") {
			t.Errorf("%s: the copy holds the credential:\n%s", c.Path, c.Content)
		}
	}
	slices.Sort(paths)
	if want := []string{"FETCH_HEAD", "logs/HEAD", "logs/refs/heads/feature/x", "worktrees/w/logs/HEAD"}; !slices.Equal(paths, want) {
		t.Errorf("copies %q, want %q", paths, want)
	}
	if len(leftOut) != len(copies) || strings.Contains(strings.Join(leftOut, " "), "TOKEN") {
		t.Errorf("left out named %q", leftOut)
	}
	if c := copies[slices.IndexFunc(copies, func(c mount.Reflog) bool {
		return strings.HasSuffix(c.Path, "/logs/HEAD") && !strings.Contains(c.Path, "worktrees")
	})]; !strings.Contains(c.Content, "commit: a@b\n") || !strings.Contains(c.Content, "pull https://git.example.com/x main: Fast-forward\n") {
		t.Errorf("logs/HEAD's copy:\n%s", c.Content)
	}
}

// Logs the sandbox planted by the thousand, or more holding a credential
// than are copied, hide the branches' folder whole: the next launch
// neither opens each nor mounts a copy of each, and the user's log among
// them is not shown.
func TestReflogCopiesBounded(t *testing.T) {
	for name, plant := range map[string]func(heads string){
		"many copies": func(heads string) {
			for i := range maxRefLogCopies + 2 {
				os.WriteFile(filepath.Join(heads, fmt.Sprintf("b%02d", i)), []byte("x\tpull https://u:TOKEN@h/x\n"), 0o644)
			}
		},
		"many entries": func(heads string) {
			for i := range maxRefLogEntries {
				os.Mkdir(filepath.Join(heads, fmt.Sprintf("a%05d", i)), 0o755)
			}
			os.WriteFile(filepath.Join(heads, "zz"), []byte("x\tpull https://u:TOKEN@h/x\n"), 0o644)
		},
	} {
		git := filepath.Join(t.TempDir(), ".git")
		heads := filepath.Join(git, "logs", "refs", "heads")
		os.MkdirAll(heads, 0o755)
		plant(heads)
		copies, _, _ := reflogCopies(project.Project{GitDir: git, CommonDir: git}, nil)
		if len(copies) != 1 || !copies[0].Dir || copies[0].Path != filepath.Dir(heads) {
			t.Errorf("%s: copies %+v, want the refs' logs' folder hidden whole", name, copies)
		}
	}
}

// A git hook with a credential written in it is hidden; one with none,
// and a sample, are not.
func TestHooksWithCredentials(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	hooks := filepath.Join(git, "hooks")
	os.MkdirAll(hooks, 0o755)
	for name, text := range map[string]string{
		"post-commit":       "#!/bin/sh\ncurl -d x https://hooks.slack.com/services/T01/B02/abcdefghijkl\n",
		"pre-push":          "#!/bin/sh\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123\n",
		"commit-msg":        "#!/bin/sh\ngrep -q . \"$1\"\n",
		"pre-commit.sample": "#!/bin/sh\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123\n",
	} {
		os.WriteFile(filepath.Join(hooks, name), []byte(text), 0o755)
	}
	hiddenEntries, leftOut := hooksWithCredentials(project.Project{GitDir: git, CommonDir: git}, nil)
	var hidden []string
	for _, e := range hiddenEntries {
		hidden = append(hidden, e.Path)
	}
	slices.Sort(hidden)
	if want := []string{filepath.Join(hooks, "post-commit"), filepath.Join(hooks, "pre-push")}; !slices.Equal(hidden, want) || len(leftOut) != 2 {
		t.Errorf("hidden %q (%q), want %q", hidden, leftOut, want)
	}
}

// What the user or another program keeps at a git directory's top is
// shown empty; git's own entries, its refs, messages and locks are not.
func TestGitDirNotOwn(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	for _, d := range []string{"objects", "refs", "hooks", "lfs", "gk"} {
		os.MkdirAll(filepath.Join(git, d), 0o755)
	}
	for _, f := range []string{"HEAD", "config", "index", "FETCH_HEAD", "COMMIT_EDITMSG", "index.lock", "sharedindex.0a1b", "credentials", "sourcetreeconfig.json"} {
		os.WriteFile(filepath.Join(git, f), nil, 0o644)
	}
	os.Symlink("/etc/passwd", filepath.Join(git, "link"))
	entries, leftOut, crowded := gitDirNotOwn(project.Project{GitDir: git, CommonDir: git}, nil)
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s %v", strings.TrimPrefix(e.Path, git+"/"), e.Dir))
	}
	slices.Sort(got)
	if want := []string{"credentials false", "gk true", "sourcetreeconfig.json false"}; !slices.Equal(got, want) || len(leftOut) != 3 || crowded != "" {
		t.Errorf("not git's own %q (%q, crowded %q), want %q", got, leftOut, crowded, want)
	}
}

// TestGitDirCrowded: a session that fills the git directory's top with
// entries of its own, past those the launch shows empty, would push the
// user's credential store among those shown as they are (65,536 empty
// files put credentials at the 6,209th place on ext4): past the bound
// nothing is shown empty and the git directory is named, for the launch
// to refuse.
func TestGitDirCrowded(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	os.MkdirAll(filepath.Join(git, "objects"), 0o755)
	os.WriteFile(filepath.Join(git, "credentials"), []byte("https://u:TOKEN@host\n"), 0o600)
	for i := range MaxGitDirEntries {
		os.WriteFile(filepath.Join(git, fmt.Sprintf("p%05d", i)), nil, 0o644)
	}
	entries, leftOut, crowded := gitDirNotOwn(project.Project{GitDir: git, CommonDir: git}, nil)
	if crowded != git || len(entries) != 0 || len(leftOut) != 0 {
		t.Errorf("crowded %q, %d shown empty, %d named, want %s and none", crowded, len(entries), len(leftOut), git)
	}
}

// TestAnnexPaddedHiddenWhole: entries a session made in a git directory's
// annex are not git-annex's own, so the launch shows each empty, and the
// exit audit leaves them (it judges annex's objects only): 1,030 empty
// files there had every later launch refuse, naming .git, whose `ls -a`
// showed nothing planted. Past maxAnnexNotOwn the annex is shown empty
// whole (one mount) and the launch goes on.
func TestAnnexPaddedHiddenWhole(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	os.MkdirAll(filepath.Join(git, "annex", "objects"), 0o755)
	os.WriteFile(filepath.Join(git, "credentials"), nil, 0o600)
	for i := range MaxGitDirEntries + 6 {
		os.WriteFile(filepath.Join(git, "annex", fmt.Sprintf("p%05d", i)), nil, 0o644)
	}
	entries, _, crowded := gitDirNotOwn(project.Project{GitDir: git, CommonDir: git}, nil)
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s %v", strings.TrimPrefix(e.Path, git+"/"), e.Dir))
	}
	slices.Sort(got)
	if want := []string{"annex true", "credentials false"}; crowded != "" || !slices.Equal(got, want) {
		t.Errorf("crowded %q, shown empty %d: %.200q, want %q", crowded, len(got), got, want)
	}
}
