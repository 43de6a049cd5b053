package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview31WorktreeLinkPruned: git's prune of worktrees
// (git worktree prune, and git gc, which runs it) takes an entry of
// .git/worktrees with no gitdir file for a stale worktree and removes it
// recursively, opening it through a symbolic link. A session links
// .git/worktrees/zz (in one project) and .git/worktrees itself (in
// another) to a folder of the user's it cannot even see: the host's git
// worktree prune, or git gc, then deleted every file of it (git 2.39).
// Host-side proof: after each session the host's prune and gc leave the
// user's files byte-identical.
func TestReplayReview31WorktreeLinkPruned(t *testing.T) {
	h := harness.NewHost(t)
	docs := filepath.Join(h.Home, "Documents")
	h.Write(filepath.Join(docs, "thesis.tex"), "chapter one\n")
	h.Write(filepath.Join(docs, "notes", "todo.txt"), "write it\n")
	one, two := filepath.Join(h.Home, "one"), filepath.Join(h.Home, "two")
	h.GitRepo(one)
	h.GitRepo(two)
	// .git/worktrees is now the session's own inside: the links stay
	// there, lost at exit, and .git/worktrees itself is a mount point.
	h.Inside(one, nil, `mkdir -p .git/worktrees; ln -s `+docs+` .git/worktrees/zz; true`)
	h.Inside(two, nil, `ln -s `+h.Home+` .git/worktrees; true`)
	h.Command(one, nil, "git", "worktree", "prune").Run()
	h.Command(one, nil, "git", "gc", "-q").Run()
	h.Command(two, nil, "git", "worktree", "prune").Run()
	h.Command(two, nil, "git", "gc", "-q").Run()
	for rel, want := range map[string]string{"thesis.tex": "chapter one\n", "notes/todo.txt": "write it\n"} {
		if b, err := os.ReadFile(filepath.Join(docs, rel)); err != nil || string(b) != want {
			t.Errorf("the host's git worktree prune or gc removed or changed %s, through the link a session left in .git/worktrees: %q %v", rel, b, err)
		}
	}
	for _, p := range []string{filepath.Join(one, "README"), filepath.Join(two, "README")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestReplayReview31WorktreeReflogPastPlanted: the launch read the
// reflogs of the first 16 entries of .git/worktrees, in directory order.
// A session plants 120 folders there, each with a gitdir file, as git
// makes them (they stay; in directory order, yours is past the first 16
// but by chance); the host's git pull with a token in its
// URL, in the linked worktree, writes the token into that worktree's
// logs/HEAD; the next session read it there. Proof: the token is not
// readable in the next session, and the launch names the copy.
func TestReplayReview31WorktreeReflogPastPlanted(t *testing.T) {
	h := harness.NewHost(t)
	up := filepath.Join(h.Home, "src", "up")
	h.GitRepo(up)
	proj := filepath.Join(h.Home, "work", "app")
	h.Run(h.Home, nil, "git", "clone", "-q", up, proj)
	linked := filepath.Join(h.Home, "work", "app-w")
	branch := strings.TrimSpace(h.Run(up, nil, "git", "branch", "--show-current"))
	h.Run(proj, nil, "git", "worktree", "add", "-q", "-b", "w", linked, "origin/"+branch)
	// Planted on the host, as a sandbox left them before .git/worktrees
	// was read-only inside.
	h.Run(proj, nil, "sh", "-c", `for i in $(seq 0 119); do mkdir -p .git/worktrees/a$i/logs && echo /nowhere/a$i/.git > .git/worktrees/a$i/gitdir; done`)
	h.Write(filepath.Join(up, "NEW"), "new\n")
	h.Run(up, nil, "git", "add", "NEW")
	h.Run(up, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "new")
	const token = "R31worktreeTok5vN"
	h.Run(linked, nil, "git", "pull", "-q", "file://bob:"+token+"@"+up, branch)
	log := filepath.Join(proj, ".git", "worktrees", "app-w", "logs", "HEAD")
	if !strings.Contains(harness.Snapshot(log), token) {
		t.Fatalf("the host's git did not record the pull's URL in the worktree's reflog; the attack needs it")
	}
	notice := h.InsideStderr(proj, "true")
	if !strings.Contains(notice, log) || strings.Contains(notice, token) {
		t.Errorf("the launch should name the worktree's reflog copied, never the token:\n%s", notice)
	}
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/worktrees/*/logs/HEAD | grep -c "+token+"; true")
	if !strings.HasPrefix(out, "0\n") {
		t.Errorf("the token a host-side git pull wrote in a linked worktree's reflog is readable inside, past the folders a session planted:\n%s", out)
	}
}
