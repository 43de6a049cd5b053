package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanPseudoRefsAndReflogs: the refs at a git directory's top the
// session wrote are named (ORIG_HEAD, FETCH_HEAD), but an ORIG_HEAD
// down HEAD's first parents, which git log shows, and BISECT_START,
// which git bisect reset checks out unasked, is found. A reflog the
// session wrote is named unless it holds the start's lines and after them
// only what git log shows: the session's commits (not where the user's
// own last checkout came from a commit), a checkout from a branch, loose
// or packed; not a checkout from a commit's id, a revision or a line git
// would not read as one, nor a move to a commit of the session's and
// back (HEAD@{1}), nor the start's lines rewritten.
func TestScanPseudoRefsAndReflogs(t *testing.T) {
	root := t.TempDir()
	env, git := gitIn(t, root)
	other := strings.Repeat("1", 40)
	line := func(old, value, message string) string {
		return old + " " + value + " t <t@example.com> 1700000000 +0000\t" + message + "\n"
	}
	appended := map[string]func(head string) string{
		"branch":   func(head string) string { return line(head, head, "checkout: moving from main to main") },
		"packed":   func(head string) string { return line(head, head, "checkout: moving from old to main") },
		"commit":   func(head string) string { return line(head, head, "checkout: moving from "+other+" to main") },
		"revision": func(head string) string { return line(head, head, "checkout: moving from :/fix to main") },
		"missing":  func(head string) string { return line(head, head, "checkout: moving from gone to main") },
		"malformed": func(head string) string {
			return head + " " + head + " t <t@example.com> x +0000\tcheckout: moving from main to main\n"
		},
		"reset": func(head string) string {
			return line(head, other, "reset: moving to x") + line(other, head, "reset: moving to HEAD@{1}")
		},
		"commits":   nil,
		"detached":  nil,
		"rewritten": nil,
	}
	heads := map[string]string{}
	for repo := range appended {
		c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, repo))
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		git(repo, "commit", "-q", "--allow-empty", "-m", "init")
		heads[repo] = git(repo, "rev-parse", "HEAD")
	}
	git("detached", "checkout", "-q", heads["detached"])
	git("detached", "checkout", "-q", "main")
	must(t, os.WriteFile(filepath.Join(root, "packed", ".git", "packed-refs"), []byte(heads["packed"]+" refs/heads/old\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for repo, log := range appended {
		if log == nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(root, repo, ".git", "logs", "HEAD"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString(log(heads[repo]))
		must(t, err)
		must(t, f.Close())
	}
	for _, repo := range []string{"commits", "detached"} {
		git(repo, "commit", "-q", "--allow-empty", "-m", "one")
		git(repo, "commit", "-q", "--allow-empty", "-m", "two")
	}
	// ORIG_HEAD is named but where it is in the history git log shows.
	must(t, os.WriteFile(filepath.Join(root, "commits", ".git", "ORIG_HEAD"), []byte(heads["commits"]+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "detached", ".git", "ORIG_HEAD"), []byte(other+"\n"), 0o644))
	rewritten := filepath.Join(root, "rewritten", ".git", "logs", "HEAD")
	b, err := os.ReadFile(rewritten)
	must(t, err)
	must(t, os.WriteFile(rewritten, []byte(strings.Replace(string(b), "init", "tini", 1)), 0o644))
	for _, ref := range []string{"ORIG_HEAD", "FETCH_HEAD", "BISECT_START"} {
		write(t, filepath.Join(root, "branch", ".git", ref))
	}
	r := Scan(root, since, nil, start, nil)
	slices.Sort(r.Branches)
	var want []string
	for _, repo := range []string{"commit", "malformed", "missing", "reset", "revision", "rewritten"} {
		want = append(want, filepath.Join(root, repo, ".git", "logs", "HEAD"))
	}
	want = append(want, filepath.Join(root, "branch", ".git", "FETCH_HEAD"), filepath.Join(root, "branch", ".git", "ORIG_HEAD"), filepath.Join(root, "detached", ".git", "ORIG_HEAD"))
	slices.Sort(want)
	if !slices.Equal(r.Branches, want) {
		t.Errorf("named:\n%q\nwant:\n%q", r.Branches, want)
	}
	if found := []string{filepath.Join(root, "branch", ".git", "BISECT_START")}; !slices.Equal(r.Found, found) {
		t.Errorf("found %q, want %q", r.Found, found)
	}
}

// TestScanCloneRefs: a repository the session cloned (its work tree and
// git directory made during it, by their birth times, where nothing stood
// at the start) has only refs the session wrote: none is named, as none
// of its files is one by one. A git directory made in a directory that
// was there before (git init in the user's folder) is no clone, nor is a
// fresh one put in place of the user's repository under its name: their
// branches are named.
func TestScanCloneRefs(t *testing.T) {
	root := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
	gitInit := func(repo string) {
		c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, repo))
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	must(t, os.MkdirAll(filepath.Join(root, "old"), 0o755))
	gitInit("replaced")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.RemoveAll(filepath.Join(root, "replaced")))
	for _, repo := range []string{"clone", "old", "replaced"} {
		gitInit(repo)
		write(t, filepath.Join(root, repo, ".git", "refs", "heads", "evil"))
	}
	r := Scan(root, since, nil, start, nil)
	want := []string{filepath.Join(root, "old", ".git", "refs", "heads", "evil"), filepath.Join(root, "replaced", ".git", "refs", "heads", "evil")}
	if slices.Sort(r.Branches); !slices.Equal(r.Branches, want) {
		t.Errorf("named:\n%q\nwant:\n%q", r.Branches, want)
	}
}

// TestScanReftable: a table the session wrote in a git directory's
// reftable/, which holds every ref where the repository says so, is named
// once as not examined; tables left as they were are not.
func TestScanReftable(t *testing.T) {
	root := t.TempDir()
	tables := filepath.Join(root, "repo", ".git", "reftable")
	write(t, filepath.Join(tables, "tables.list"))
	write(t, filepath.Join(root, "kept", ".git", "reftable", "tables.list"))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	write(t, filepath.Join(tables, "tables.list"))
	write(t, filepath.Join(tables, "0x000000000002-0x000000000002-00000000.ref"))
	r := Scan(root, since, nil, start, nil)
	if len(r.NotExamined) != 1 || !strings.HasPrefix(r.NotExamined[0], tables+": ") {
		t.Errorf("not examined: %q, want %s once", r.NotExamined, tables)
	}
}

// TestScanWorktreeReflog: a session that commits in a linked worktree of
// the project writes that worktree's logs/HEAD in its git directory
// (.git/worktrees/<name>), whose branch and objects are the common
// directory's: not named. A move planted there is.
func TestScanWorktreeReflog(t *testing.T) {
	root := t.TempDir()
	_, git := gitIn(t, root)
	git(".", "init", "-q", "-b", "main")
	git(".", "commit", "-q", "--allow-empty", "-m", "init")
	for _, name := range []string{"own", "planted"} {
		git(".", "worktree", "add", "-q", "-b", name, filepath.Join(root, ".wt", name))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git(".wt/own", "commit", "-q", "--allow-empty", "-m", "one")
	git(".wt/own", "commit", "-q", "--allow-empty", "-m", "two")
	head := git(".wt/planted", "rev-parse", "HEAD")
	other := strings.Repeat("1", 40)
	log := filepath.Join(root, ".git", "worktrees", "planted", "logs", "HEAD")
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(head + " " + other + " t <t@example.com> 1700000000 +0000\treset: moving to x\n" + other + " " + head + " t <t@example.com> 1700000000 +0000\treset: moving to HEAD@{1}\n")
	must(t, err)
	must(t, f.Close())
	r := Scan(root, since, nil, start, nil)
	if want := []string{log}; !slices.Equal(r.Branches, want) {
		t.Errorf("named:\n%q\nwant:\n%q", r.Branches, want)
	}
}

// TestScanReflogBranchTip: a session that checked out a branch it did
// not write and its own again left logs/HEAD naming that branch's tip,
// which git log shows there and which is the host's own: not named. One
// that made a branch at its commit and switched back left HEAD@{1} there,
// which the host's git reset --hard HEAD@{1} checks out: the reflog is
// named beside the branch (the branch's naming says what git switch
// writes, not what the reset does), and so where the branch is gone.
func TestScanReflogBranchTip(t *testing.T) {
	root := t.TempDir()
	_, git := gitIn(t, root)
	for _, repo := range []string{"visited", "made", "deleted"} {
		git(".", "init", "-q", "-b", "main", repo)
		git(repo, "commit", "-q", "--allow-empty", "-m", "init")
	}
	git("visited", "checkout", "-q", "-b", "dev")
	git("visited", "commit", "-q", "--allow-empty", "-m", "dev")
	git("visited", "checkout", "-q", "main")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	git("visited", "checkout", "-q", "dev")
	git("visited", "checkout", "-q", "main")
	for _, repo := range []string{"made", "deleted"} {
		git(repo, "checkout", "-q", "-b", "x")
		git(repo, "commit", "-q", "--allow-empty", "-m", "one")
		git(repo, "checkout", "-q", "main")
	}
	git("deleted", "branch", "-q", "-D", "x")
	r := Scan(root, since, nil, start, nil)
	want := []string{
		filepath.Join(root, "deleted", ".git", "logs", "HEAD"),
		filepath.Join(root, "made", ".git", "logs", "HEAD"),
		filepath.Join(root, "made", ".git", "refs", "heads", "x"),
	}
	if slices.Sort(r.Branches); !slices.Equal(r.Branches, want) {
		t.Errorf("named:\n%q\nwant:\n%q", r.Branches, want)
	}
}

// gitIn is the environment git runs in below root, with an author, and a
// runner of git in a directory there that returns its output.
func gitIn(t *testing.T, root string) ([]string, func(dir string, args ...string) string) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	return env, func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", filepath.Join(root, dir)}, args...)...)
		c.Env = env
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %q: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
}
