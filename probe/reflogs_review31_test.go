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

// Every ref's log is judged (a remote-tracking branch's that git pull
// URL main:refs/remotes/origin/main wrote), in the project's repository
// and in the others' (a submodule's), as are the others' hooks, a hook
// in a folder of hooks, and what is not git's own at their top or
// git-annex's known harmless in their annex (its credential cache is not).
func TestEveryGitDirJudged(t *testing.T) {
	dir := t.TempDir()
	git := filepath.Join(dir, "p", ".git")
	sub := filepath.Join(git, "modules", "lib")
	const ident = "a1 b2 Alice <alice@example.com> 1 +0000\t"
	write := func(p, text string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(git, "logs/refs/remotes/origin/main"), ident+"pull https://bob:TOKEN1@h/x main:refs/remotes/origin/main: storing head\n")
	write(filepath.Join(sub, "logs/HEAD"), ident+"pull https://bob:TOKEN2@h/x main: Fast-forward\n")
	write(filepath.Join(sub, "logs/refs/heads/main"), ident+"commit: plain\n")
	write(filepath.Join(sub, "FETCH_HEAD"), "a1\t\tbranch 'main' of https://u:TOKEN3@h/x\n")
	write(filepath.Join(sub, "credentials"), "https://u:TOKEN4@h\n")
	write(filepath.Join(sub, "hooks/post-commit"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123\n")
	write(filepath.Join(git, "hooks/pre-commit.d/notify"), "#!/bin/sh\ncurl -d x https://hooks.slack.com/services/T01/B02/abcdefghijkl\n")
	write(filepath.Join(git, "hooks/pre-commit.d/lint"), "#!/bin/sh\nmake lint\n")
	write(filepath.Join(git, "annex/creds/0d1e-uuid"), "AKIAEXAMPLE\nsecret\n")
	write(filepath.Join(git, "annex/privkey.pem"), "-----BEGIN PRIVATE KEY-----\n")
	write(filepath.Join(git, "annex/objects/ab/cd/K/K"), "annexed\n")
	write(filepath.Join(git, "annex/journal.lck"), "")
	write(filepath.Join(git, "annex/daemon.log.1"), "")
	write(filepath.Join(git, "annex/index"), "")
	p := project.Project{GitDir: git, CommonDir: git}
	guards := []mount.Guard{
		{Path: filepath.Join(git, "config"), GitConfig: true, Exists: true},
		{Path: filepath.Join(sub, "config"), GitConfig: true, Exists: true},
		{Path: filepath.Join(sub, "config.worktree"), GitConfig: true},
		{Path: filepath.Join(dir, "gone", ".git", "config"), GitConfig: true},
	}
	others := otherGitDirs(p, guards)
	if !slices.Equal(others, []string{sub}) {
		t.Fatalf("other git directories %q, want %q", others, sub)
	}
	rel := func(paths []string) []string {
		for i, p := range paths {
			paths[i] = strings.TrimPrefix(p, git+"/")
		}
		slices.Sort(paths)
		return paths
	}
	copies, _, _ := reflogCopies(p, others)
	var got []string
	for _, c := range copies {
		got = append(got, c.Path)
		if strings.Contains(c.Content, "TOKEN") {
			t.Errorf("%s: the copy holds the credential", c.Path)
		}
	}
	if want := []string{"logs/refs/remotes/origin/main", "modules/lib/FETCH_HEAD", "modules/lib/logs/HEAD"}; !slices.Equal(rel(got), want) {
		t.Errorf("copies %q, want %q", got, want)
	}
	hidden, _ := hooksWithCredentials(p, others)
	got = nil
	for _, e := range hidden {
		got = append(got, e.Path)
	}
	if want := []string{"hooks/pre-commit.d/notify", "modules/lib/hooks/post-commit"}; !slices.Equal(rel(got), want) {
		t.Errorf("hooks hidden %q, want %q", got, want)
	}
	notOwn, _, _ := gitDirNotOwn(p, others)
	got = nil
	for _, e := range notOwn {
		got = append(got, e.Path)
	}
	if want := []string{"annex/creds", "annex/privkey.pem", "modules/lib/credentials"}; !slices.Equal(rel(got), want) {
		t.Errorf("not git's own %q, want %q", got, want)
	}
}

// Past the entries read, the repository's hooks are shown empty whole:
// neither a mount for each of a thousand hooks, nor the user's among
// them unjudged.
func TestHooksPastBoundHidden(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	many := filepath.Join(git, "hooks", "a.d")
	os.MkdirAll(many, 0o755)
	for i := range maxHooks {
		os.WriteFile(filepath.Join(many, fmt.Sprint(i)), nil, 0o755)
	}
	os.WriteFile(filepath.Join(git, "hooks", "zz"), []byte("#!/bin/sh\nexport GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123\n"), 0o755)
	hidden, _ := hooksWithCredentials(project.Project{GitDir: git, CommonDir: git}, nil)
	if want := []mount.GitEntry{{Path: filepath.Join(git, "hooks"), Dir: true}}; !slices.Equal(hidden, want) {
		t.Errorf("hidden %+v, want %+v", hidden, want)
	}
}

// A legacy remote's file with a URL's credential is shown empty, one
// with none is not; past the bound the folder is shown empty whole.
func TestLegacyRemotesWithCredentials(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	for rel, text := range map[string]string{
		"remotes/upstream": "URL: https://bob:TOKEN@h/x.git\n",
		"remotes/plain":    "URL: https://h/x.git\n",
		"branches/mirror":  "https://dl.cloudsmith.io/Zk3wQp9LmT2v/acme/x.git#main\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(git, rel)), 0o755)
		os.WriteFile(filepath.Join(git, rel), []byte(text), 0o644)
	}
	hidden, leftOut := legacyRemotesWithCredentials(project.Project{GitDir: git, CommonDir: git}, nil)
	want := []mount.GitEntry{{Path: filepath.Join(git, "remotes", "upstream")}, {Path: filepath.Join(git, "branches", "mirror")}}
	slices.SortFunc(hidden, func(a, b mount.GitEntry) int { return strings.Compare(b.Path, a.Path) })
	if !slices.Equal(hidden, want) || len(leftOut) != 2 {
		t.Errorf("hidden %+v, want %+v", hidden, want)
	}
	for i := range maxLegacyRemotes {
		os.WriteFile(filepath.Join(git, "remotes", fmt.Sprint(i)), nil, 0o644)
	}
	hidden, _ = legacyRemotesWithCredentials(project.Project{GitDir: git, CommonDir: git}, nil)
	if !slices.Contains(hidden, mount.GitEntry{Path: filepath.Join(git, "remotes"), Dir: true}) {
		t.Errorf("hidden %+v, want the remotes' folder shown empty whole", hidden)
	}
}
