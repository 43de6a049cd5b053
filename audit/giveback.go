package audit

import (
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// Reopened is a directory of the start's that the session had closed,
// given its owner's permissions back: its path, and the permissions the
// session had left it.
type Reopened struct {
	Path string
	Had  fs.FileMode
}

// GiveBack gives each directory below root that start records, the same
// inode still at its path, whose status changed since (its permissions
// taken away then, not by its owner before), its owner's read, write and
// search permission back: closed (chmod 000 .git/objects), the audit
// could not look in, and took it whole, the user's repository with it.
// What the session made and closed is no one's but the session's, and is
// still taken whole. Parents come before their children in the record's
// order, so a closed one's are reached once it is open. The stand-ins
// (claudebox's, closed by it) stay as they are.
func GiveBack(root string, since time.Time, start *Snapshot, standIns []string) []Reopened {
	if start == nil || start.Root != root {
		return nil
	}
	top, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(top)
	var reopened []Reopened
	for _, f := range start.files.items {
		rel := start.files.names[f.path : f.path+uint32(f.pathLen)]
		var st unix.Stat_t
		// A cheap look first (through a link, maybe: it changes nothing);
		// the change itself reaches the directory with no link on the way.
		if f.has&hasInode == 0 || rel == "" || rel == "." || unix.Fstatat(top, rel, &st, unix.AT_SYMLINK_NOFOLLOW) != nil ||
			st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Ino != f.ino || st.Dev != start.Dev || st.Mode&0o700 == 0o700 ||
			time.Unix(st.Ctim.Unix()).Before(since) || slices.Contains(standIns, filepath.Join(root, rel)) {
			continue
		}
		// A directory made since in one's place may have its inode's
		// number; where the file system says when it was born, it is
		// the session's.
		var sx unix.Statx_t
		if unix.Statx(top, rel, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME|unix.STATX_INO, &sx) != nil || sx.Ino != f.ino ||
			sx.Mask&unix.STATX_BTIME != 0 && !time.Unix(sx.Btime.Sec, int64(sx.Btime.Nsec)).Before(since) {
			continue
		}
		if had, ok, err := untrusted.GiveBackDir(root, rel, f.ino); err == nil && ok {
			reopened = append(reopened, Reopened{Path: filepath.Join(root, rel), Had: had})
		}
	}
	return reopened
}
