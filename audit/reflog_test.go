package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanPseudoRefsAndPreviousCheckout: the refs at a git directory's
// top the session wrote are named (ORIG_HEAD, FETCH_HEAD), but
// BISECT_START, which git bisect reset checks out unasked, is found;
// logs/HEAD is named where git checkout - would return to what is not a
// branch of the repository (a commit's id, a revision, a line git would
// not read as one), not where it returns to a branch, loose or packed.
func TestScanPseudoRefsAndPreviousCheckout(t *testing.T) {
	root := t.TempDir()
	oid := strings.Repeat("1", 40)
	line := func(from string) string {
		return oid + " " + oid + " t <t@example.com> 1700000000 +0000\tcheckout: moving from " + from + " to main\n"
	}
	logs := map[string]string{
		"branch":    line("main"),
		"packed":    line("old") + oid + " " + oid + " t <t@example.com> 1700000000 +0000\tcommit: x\n",
		"none":      oid + " " + oid + " t <t@example.com> 1700000000 +0000\tcommit: x\n",
		"commit":    line(oid),
		"revision":  line(":/fix"),
		"missing":   line("gone"),
		"malformed": line("main") + oid + " " + oid + " t <t@example.com> x +0000\tcheckout: moving from main to main\n",
	}
	for repo := range logs {
		c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, repo))
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		write(t, filepath.Join(root, repo, ".git", "refs", "heads", "main"))
		write(t, filepath.Join(root, repo, ".git", "logs", "HEAD"))
	}
	must(t, os.WriteFile(filepath.Join(root, "packed", ".git", "packed-refs"), []byte(oid+" refs/heads/old\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for repo, log := range logs {
		must(t, os.WriteFile(filepath.Join(root, repo, ".git", "logs", "HEAD"), []byte(log), 0o644))
	}
	for _, ref := range []string{"ORIG_HEAD", "FETCH_HEAD", "BISECT_START"} {
		write(t, filepath.Join(root, "branch", ".git", ref))
	}
	r := Scan(root, since, nil, start, nil)
	slices.Sort(r.Branches)
	var want []string
	for _, repo := range []string{"commit", "malformed", "missing", "revision"} {
		want = append(want, filepath.Join(root, repo, ".git", "logs", "HEAD"))
	}
	want = append(want, filepath.Join(root, "branch", ".git", "FETCH_HEAD"), filepath.Join(root, "branch", ".git", "ORIG_HEAD"))
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
