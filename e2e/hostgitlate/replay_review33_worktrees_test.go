package hostgitlate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview33WorktreesPrunedWhileRunning: .git/worktrees is
// read-only inside, but the host's git worktree prune (and git worktree
// remove of the last linked worktree) removes the folder where it is
// empty, and the kernel detaches the sandbox's mount on a removed
// directory. The guard watcher then ended the session ("was removed on
// the host"), and a sandbox that was waiting for it could make the folder
// again, with a link to a folder of the user's, in the moment before it
// died: the host's git gc that follows removes what the link leads to.
// The folder now keeps an entry git never prunes while a session runs:
// the session goes on, the sandbox cannot write there (its own
// .git/worktrees inside takes the link, which the host never sees), and
// the keeper is gone after the session. Host-side proof: the user's files
// are byte-identical, git worktree list shows the checkout alone, and no
// link is in the host's .git/worktrees.
func TestReplayReview33WorktreesPrunedWhileRunning(t *testing.T) {
	h := harness.NewHost(t)
	docs := filepath.Join(h.Home, "Documents")
	h.Write(filepath.Join(docs, "thesis", "one.tex"), "chapter one\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	// Once the host says it pruned, the sandbox tries a while longer,
	// each time in one call, as a program waiting for the moment would.
	_, out, exited := harness.StartSession(t, h, proj, `touch started; python3 -c '
import os
after = 0
while not os.path.exists("done"):
    try:
        os.symlink("`+docs+`", ".git/worktrees")
        open("planted", "w").close()
    except OSError:
        pass
    try:
        os.symlink("`+docs+`", ".git/worktrees/zz")
    except OSError:
        pass
    if os.path.exists("pruned"):
        after += 1
        if after == 2000:
            open("tried", "w").close()
'; rm -f started done pruned tried`)
	pruned, _ := h.Command(proj, nil, "git", "worktree", "prune").CombinedOutput()
	h.Write(filepath.Join(proj, "pruned"), "")
	harness.WaitFor(t, "the sandbox's tries after the prune", func() bool {
		return paths.Exists(filepath.Join(proj, "tried")) || len(exited) > 0
	})
	gc, _ := h.Command(proj, nil, "git", "gc", "-q").CombinedOutput()
	_, zz := os.Lstat(filepath.Join(proj, ".git", "worktrees", "zz"))
	planted := paths.Exists(filepath.Join(proj, "planted")) || zz == nil
	harness.TouchDone(t, proj)
	err := <-exited
	if b, rerr := os.ReadFile(filepath.Join(docs, "thesis", "one.tex")); rerr != nil || string(b) != "chapter one\n" {
		t.Errorf("the host's git gc, after its git worktree prune while a session ran, removed the user's file through a link the session made in .git/worktrees: %q %v\n%s%s", b, rerr, pruned, gc)
	}
	if err != nil || planted {
		t.Errorf("the host's git worktree prune ended the session (%v), or the sandbox made a link in .git/worktrees (%v):\n%s", err, planted, out)
	}
	if fi, err := os.Lstat(filepath.Join(proj, ".git", "worktrees")); err == nil && !fi.IsDir() {
		t.Errorf(".git/worktrees is no directory after the session: %v", fi.Mode())
	}
	if paths.Exists(filepath.Join(proj, ".git", "worktrees", ".claudebox")) {
		t.Errorf("the keeper of .git/worktrees stayed after the session")
	}
	if list := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Contains(list, ".claudebox") || strings.Count(list, "worktree ") != 1 {
		t.Errorf("git worktree list after the session:\n%s", list)
	}
}

// TestReplayReview33LinkedWorktreeRemovedWhileRunning: the host's git
// worktree remove of a linked worktree that existed at the launch removes
// its record in .git/worktrees, whose gitdir and commondir are guarded
// inside; the guard watcher took that for a guard the sandbox could
// replace and ended the session. The record's folder is gone whole, in
// the session's own .git/worktrees, where the sandbox links what it likes
// and the host never looks: the session goes on, and the sandbox, trying
// all along to write in the folder (bound writable) and to link there,
// makes nothing that outlives the session. Had it kept the folder from
// going, or linked in it, in the moment between git's last unlink and its
// rmdir, the session ends as before.
func TestReplayReview33LinkedWorktreeRemovedWhileRunning(t *testing.T) {
	h := harness.NewHost(t)
	docs := filepath.Join(h.Home, "Documents")
	h.Write(filepath.Join(docs, "thesis", "one.tex"), "chapter one\n")
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	side := filepath.Join(h.Home, "proj-side")
	h.Run(proj, nil, "git", "worktree", "add", "-q", side)
	_, out, exited := harness.StartSession(t, h, proj, `touch started; python3 -c '
import os
after = 0
while not os.path.exists("done"):
    for path in (".git/worktrees/proj-side", ".git/worktrees/proj-side/gitdir"):
        try:
            os.symlink("`+docs+`", path)
            open("planted", "w").close()
        except OSError:
            pass
    try:
        open(".git/worktrees/proj-side/keep", "w").close()
    except OSError:
        pass
    if os.path.exists("removed"):
        after += 1
        if after == 2000:
            open("tried", "w").close()
'; rm -f started done removed tried`)
	removed, _ := h.Command(proj, nil, "git", "worktree", "remove", side).CombinedOutput()
	h.Write(filepath.Join(proj, "removed"), "")
	harness.WaitFor(t, "the sandbox's tries after the removal", func() bool {
		return paths.Exists(filepath.Join(proj, "tried")) || len(exited) > 0
	})
	kept := paths.Exists(filepath.Join(proj, ".git", "worktrees", "proj-side"))
	planted := paths.Exists(filepath.Join(proj, "planted"))
	t.Logf("the record kept by the sandbox: %v, a link made there: %v", kept, planted)
	// The guard watcher looks again for a while (git removes the folder
	// last) before it ends the session; the git gc below prunes a kept
	// record, which would have it let the guards go.
	if kept || planted {
		harness.WaitFor(t, "the session's end, the record kept or linked in", func() bool { return len(exited) > 0 })
	}
	gc, _ := h.Command(proj, nil, "git", "gc", "-q").CombinedOutput()
	if _, err := os.Lstat(filepath.Join(proj, ".git", "worktrees", "zz")); err == nil {
		t.Error("the sandbox's link in its .git/worktrees is in the host's")
	}
	harness.TouchDone(t, proj)
	err := <-exited
	if b, rerr := os.ReadFile(filepath.Join(docs, "thesis", "one.tex")); rerr != nil || string(b) != "chapter one\n" {
		t.Errorf("the user's file after the host's git worktree remove and gc: %q %v\n%s%s", b, rerr, removed, gc)
	}
	// Between git's last unlink and its rmdir the record's folder is
	// still bound writable inside: a link made there then is a guard
	// replaced, which ends the session, as one the sandbox keeps the
	// folder with does (measured: 2 runs of 7 under load).
	if ended := err != nil && (strings.Contains(out.String(), "removed on the host") || strings.Contains(out.String(), "replaced by a symlink on the host")); ended != (kept || planted) {
		t.Errorf("the session ended: %v, the removed worktree's record kept by the sandbox: %v, a link made there: %v: %v\n%s%s", ended, kept, planted, err, removed, out)
	}
}
