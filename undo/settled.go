package undo

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/internal/dirent"
	"github.com/claudebox/claudebox/internal/parallel"
)

// settledLimit bounds the directories listSettled reads (a checkout of
// 1,000,000 files in directories of 20 holds 50,000); past it the list is
// not known to be the start's.
const settledLimit = 1 << 20

// listSettled says whether what git's list of the checkout's ignored
// files depends on is as it was at since, read once git has listed: the
// names (no directory of the checkout had an entry made, removed or moved
// from since on, even one put back: a directory's status change time is
// never set back), the rules (no .gitignore rewritten, nor the
// repository's info/exclude, which the store copies, in common, its git
// directory). A list taken while the sandbox ran is then the one it would
// have been taken before. Git directories (.git) are not entered, as git
// does not list them; a link is not followed. What it cannot tell (a
// directory it cannot open, too deep, past settledLimit, ctx ended) is
// false.
func listSettled(ctx context.Context, checkout, common string, since time.Time) bool {
	before := func(sx *unix.Stat_t) bool { return time.Unix(sx.Ctim.Unix()).Before(since) }
	for _, path := range []string{common, filepath.Join(common, "info"), filepath.Join(common, "info", "exclude")} {
		var sx unix.Stat_t
		if err := unix.Lstat(path, &sx); err != nil && err != unix.ENOENT || err == nil && !before(&sx) {
			return false
		}
	}
	top, err := unix.Open(checkout, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(top)
	var changed atomic.Bool
	var read atomic.Int64
	// dir reads the directory open at fd, its path rel bytes long, and
	// those below it; the top's subdirectories it leaves to sub.
	var dir func(fd, depth, rel int, sub *[]string) bool
	dir = func(fd, depth, rel int, sub *[]string) bool {
		var sx unix.Stat_t
		if changed.Load() || ctx.Err() != nil || read.Add(1) > settledLimit || unix.Fstat(fd, &sx) != nil || !before(&sx) {
			return false
		}
		switch err := unix.Fstatat(fd, ".gitignore", &sx, unix.AT_SYMLINK_NOFOLLOW); {
		case err == unix.ENOENT:
		case err != nil || !before(&sx):
			return false
		}
		buf := dirent.Buffer()
		defer dirent.Release(buf)
		// The statuses settledLeaf reads, once for the directory's
		// leaves, not once each.
		scratch := new(leafStatuses)
		for {
			entries, err := dirent.Read(fd, *buf)
			if err != nil {
				return false
			}
			if len(entries) == 0 {
				return true
			}
			for name, typ := range entries.All() {
				if string(name) == ".git" {
					continue
				}
				if typ == unix.DT_UNKNOWN {
					if dirent.StatAt(fd, name, &sx, unix.AT_SYMLINK_NOFOLLOW) != nil {
						return false
					}
					if sx.Mode&unix.S_IFMT == unix.S_IFDIR {
						typ = unix.DT_DIR
					}
				}
				if typ != unix.DT_DIR {
					continue
				}
				if depth+1 >= 256 || rel+1+len(name) > audit.MaxPathLen {
					return false
				}
				if sub != nil {
					*sub = append(*sub, string(name))
					continue
				}
				if leaf, settled := settledLeaf(fd, name, before, scratch); leaf {
					if !settled || read.Add(1) > settledLimit {
						return false
					}
					continue
				}
				below, err := unix.Openat(fd, string(name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
				if err != nil {
					return false
				}
				ok := dir(below, depth+1, rel+1+len(name), nil)
				unix.Close(below)
				if !ok {
					return false
				}
			}
		}
	}
	var subs []string
	if !dir(top, 0, 0, &subs) {
		return false
	}
	parallel.Each(len(subs), func(i int) {
		if changed.Load() {
			return
		}
		fd, err := unix.Openat(top, subs[i], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil || !dir(fd, 1, len(subs[i]), nil) {
			changed.Store(true)
		}
		if err == nil {
			unix.Close(fd)
		}
	})
	return !changed.Load()
}

// settledLeaf judges, by name, the directory name in the one open at fd
// where it holds no directory (its link count 2, where the filesystem
// counts them: btrfs says 1): its .gitignore's status and its own, by
// three status reads where opening and reading it took six (a large
// tree's directories are mostly such: 3,000 of 3,030 in 60,000 files).
// Its own is read again after the .gitignore's, and judged then: the name
// still led to it (a directory moved, to put a link in its place, has its
// status changed). leaf is false where it is to be opened and read as any
// other.
func settledLeaf(fd int, name []byte, before func(*unix.Stat_t) bool, st *leafStatuses) (leaf, settled bool) {
	if statAt(fd, name, &st.dir, unix.AT_SYMLINK_NOFOLLOW) != nil || st.dir.Mode&unix.S_IFMT != unix.S_IFDIR || st.dir.Nlink != 2 {
		return false, false
	}
	// The path is made where it is used, not on the heap: a flood of
	// empty directories made each its garbage (20 MB for 300,000), which
	// the supervisor held beside the start's record until it collected.
	var gitignore [unix.NAME_MAX + len("/.gitignore") + 1]byte
	n := copy(gitignore[:], name)
	n += copy(gitignore[n:], "/.gitignore")
	switch err := dirent.StatAt(fd, gitignore[:n], &st.ignore, unix.AT_SYMLINK_NOFOLLOW); {
	case err == unix.ENOENT:
	case err != nil || !before(&st.ignore):
		return true, false
	}
	return true, statAt(fd, name, &st.again, unix.AT_SYMLINK_NOFOLLOW) == nil && st.again.Mode&unix.S_IFMT == unix.S_IFDIR && st.again.Dev == st.dir.Dev && st.again.Ino == st.dir.Ino && before(&st.again)
}

// leafStatuses are the statuses settledLeaf reads of a directory: its
// own, its .gitignore's, its own again.
type leafStatuses struct{ dir, ignore, again unix.Stat_t }
