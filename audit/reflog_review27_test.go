package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPseudoRefsOfHostGit: the user rebases, resets or merges on the
// host while a session runs. The host's git leaves ORIG_HEAD at where
// HEAD was at the start and AUTO_MERGE at the tree of the commit HEAD
// now names, and the end named both as refs the session made: what a
// git reset --hard ORIG_HEAD or git restore -s AUTO_MERGE would write
// is the user's own commit, or what git log shows. A pseudo ref naming a
// commit down the first parents of HEAD, of a value a ref had at the
// start, or of a branch left as it was, and an AUTO_MERGE of HEAD's
// tree, are not named; one the session pointed at a commit of its own
// off those, or at another tree, is.
func TestScanPseudoRefsOfHostGit(t *testing.T) {
	root := t.TempDir()
	env, git := gitIn(t, root)
	for _, repo := range []string{"rebased", "reset", "merged", "planted"} {
		c := exec.Command("git", "init", "-q", "-b", "main", filepath.Join(root, repo))
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		commit := func(file string) {
			must(t, os.WriteFile(filepath.Join(root, repo, file), []byte(file+"\n"), 0o644))
			git(repo, "add", file)
			git(repo, "commit", "-q", "-m", file)
		}
		commit("a")
		git(repo, "checkout", "-q", "-b", "feat")
		commit("f")
		git(repo, "checkout", "-q", "main")
		commit("b")
		git(repo, "checkout", "-q", "feat")
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	git("rebased", "rebase", "-q", "main")
	git("reset", "reset", "-q", "--hard", "HEAD~1")
	git("merged", "merge", "-q", "--no-edit", "main")
	// The session's own commit, off every branch, and a tree of its own.
	git("planted", "checkout", "-q", "--detach")
	git("planted", "commit", "-q", "--allow-empty", "-m", "planted")
	planted := git("planted", "rev-parse", "HEAD")
	tree := git("planted", "rev-parse", "main^{tree}")
	git("planted", "checkout", "-q", "feat")
	for ref, value := range map[string]string{"ORIG_HEAD": planted, "AUTO_MERGE": tree, "MERGE_HEAD": planted} {
		must(t, os.WriteFile(filepath.Join(root, "planted", ".git", ref), []byte(value+"\n"), 0o644))
	}
	for _, repo := range []string{"rebased", "reset", "merged"} {
		if _, err := os.Stat(filepath.Join(root, repo, ".git", "ORIG_HEAD")); err != nil {
			t.Fatalf("the host's git left no ORIG_HEAD in %s: %v", repo, err)
		}
	}

	r := Scan(root, since, nil, start, nil)
	var want []string
	for _, ref := range []string{"AUTO_MERGE", "MERGE_HEAD", "ORIG_HEAD", "logs/HEAD"} {
		want = append(want, filepath.Join(root, "planted", ".git", ref))
	}
	if slices.Sort(r.Branches); !slices.Equal(r.Branches, want) {
		t.Errorf("named:\n%q\nwant:\n%q", r.Branches, want)
	}
}
