package guard

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// The keeper a launch makes in a repository's worktrees folder keeps
// git worktree prune, and git gc, from removing the folder empty (which
// takes its read-only mount away inside); git lists it not; the last
// session's cleanup removes it, and only as a launch made it: a linked
// worktree's own directory, or anything else there, stays.
func TestKeepWorktrees(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "app")
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v: %s", args, err, out)
		}
		return string(out)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	git("commit", "-q", "--allow-empty", "-m", "init")
	worktrees := filepath.Join(repo, ".git", "worktrees")
	if err := MakeDir(worktrees); err != nil {
		t.Fatal(err)
	}
	if err := KeepWorktrees(worktrees); err != nil {
		t.Fatal(err)
	}
	if err := KeepWorktrees(worktrees); err != nil {
		t.Fatalf("a second launch's keeper: %v", err)
	}
	git("worktree", "prune")
	git("gc", "-q")
	if fi, err := os.Lstat(filepath.Join(worktrees, instance.WorktreesKeeper, "locked")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("git worktree prune removed the keeper: %v", err)
	}
	if list := git("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("git worktree list names the keeper:\n%s", list)
	}
	instance.ReleaseKeeper(worktrees)
	if entries, err := os.ReadDir(worktrees); err != nil || len(entries) != 0 {
		t.Errorf("after the release, %s holds %v (%v)", worktrees, entries, err)
	}

	// Anything but the keeper as made stays.
	testfs.Write(t, filepath.Join(worktrees, instance.WorktreesKeeper, "locked"), "mine\n")
	instance.ReleaseKeeper(worktrees)
	if b, err := os.ReadFile(filepath.Join(worktrees, instance.WorktreesKeeper, "locked")); err != nil || string(b) != "mine\n" {
		t.Errorf("the release removed a lock it did not write: %q %v", b, err)
	}
	testfs.Write(t, filepath.Join(worktrees, instance.WorktreesKeeper, "locked"), instance.KeeperLock)
	testfs.Write(t, filepath.Join(worktrees, instance.WorktreesKeeper, "gitdir"), "/elsewhere/.git\n")
	instance.ReleaseKeeper(worktrees)
	if _, err := os.Lstat(filepath.Join(worktrees, instance.WorktreesKeeper, "locked")); err != nil {
		t.Errorf("the release removed a lock it did not make: %v", err)
	}
	os.RemoveAll(filepath.Join(worktrees, instance.WorktreesKeeper))

	// A link at the keeper's name refuses the launch, and is followed by
	// nothing.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(worktrees, instance.WorktreesKeeper)); err != nil {
		t.Fatal(err)
	}
	if err := KeepWorktrees(worktrees); err == nil {
		t.Error("a link at the keeper's name: no error")
	}
	instance.ReleaseKeeper(worktrees)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the keeper was made through a link: %v", entries)
	}
}

// TestKeepWorktreesFullDisk: a keeper whose lock file a full disk left
// empty is removed, not left for the cleanup to take for a session's.
func TestKeepWorktreesFullDisk(t *testing.T) {
	worktrees := t.TempDir()
	if err := unix.Mount("tmpfs", worktrees, "tmpfs", 0, "size=4k"); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(worktrees, unix.MNT_DETACH) })
	// A tmpfs directory takes no page, a file's first byte takes one.
	if err := os.WriteFile(filepath.Join(worktrees, "full"), make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := KeepWorktrees(worktrees); !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("the keeper on a full disk: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(worktrees, instance.WorktreesKeeper)); err == nil {
		t.Error("a keeper made half is left")
	}
}
