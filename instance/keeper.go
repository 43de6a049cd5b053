package instance

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// WorktreesKeeper is the entry a launch keeps in each repository's
// worktrees folder while its sessions run: git worktree prune, and git
// gc, which runs it, and git worktree remove remove the folder when it is
// empty, which takes its read-only mount away inside (the kernel detaches
// a mount on a removed directory), and the sandbox could make it again
// with a link for their next run to follow. git keeps an entry holding a
// file "locked" (a locked worktree's record), lists none without a gitdir
// file, and never names a worktree's so (it takes the leading dot off).
// It is recorded with the stand-ins, so that whatever removes a killed
// session's (the next claudebox command) removes it too.
const WorktreesKeeper = ".claudebox"

// KeeperLock is what the keeper's "locked" file holds, which says whose
// it is to anyone who looks.
const KeeperLock = "claudebox: keeps this folder while a session runs here (git worktree prune would remove it empty); it goes when the last one ends\n"

// isKeeper says a recorded path is a worktrees folder's keeper.
func isKeeper(path string) bool {
	return filepath.Base(path) == WorktreesKeeper && filepath.Base(filepath.Dir(path)) == "worktrees"
}

// ReleaseKeeper removes the keeper from worktrees once no session runs:
// only a directory holding nothing but the lock file as a launch writes
// it, reached with no link on the way. It reports whether it removed it.
func ReleaseKeeper(worktrees string) bool {
	d, err := untrusted.OpenDir("/", strings.TrimPrefix(worktrees, "/"))
	if err != nil {
		return false
	}
	defer d.Close()
	keeper, err := untrusted.OpenDir(untrusted.FDPath(d), WorktreesKeeper)
	if err != nil {
		return false
	}
	defer keeper.Close()
	names, err := keeper.Readdirnames(-1)
	if err != nil || len(names) != 1 || names[0] != "locked" {
		return false
	}
	b, err := untrusted.ReadFile(untrusted.FDPath(keeper), "locked", int64(len(KeeperLock)+1))
	return err == nil && string(b) == KeeperLock && unix.Unlinkat(int(keeper.Fd()), "locked", 0) == nil &&
		unix.Unlinkat(int(d.Fd()), WorktreesKeeper, unix.AT_REMOVEDIR) == nil
}
