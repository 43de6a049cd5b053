package audit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/paths"
)

// Unwritten returns the files that the index of the git directory gitDir
// tracks at or under one of standIns (the stand-ins a session made in the
// checkout root) and that the work tree lacks, where the index was
// written since the session began: a checkout, rebase or merge on the
// host while the session ran, which could not write under a stand-in
// (an empty read-only directory), moved the index on without them, and
// git status shows them deleted. An index written before the session
// began says nothing of it.
func Unwritten(root, gitDir string, standIns []string, since time.Time) []string {
	var rels []string
	for _, p := range standIns {
		if rel, err := filepath.Rel(root, p); err == nil && paths.Within(p, root) && rel != "." {
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	if len(rels) == 0 {
		return nil
	}
	d, err := openRoot(gitDir)
	if err != nil {
		return nil
	}
	defer d.Close()
	fd := int(d.Fd())
	var st unix.Stat_t
	if unix.Fstatat(fd, "index", &st, unix.AT_SYMLINK_NOFOLLOW) != nil || time.Unix(st.Mtim.Unix()).Before(since) {
		return nil
	}
	r, err := readIndex(fd, true)
	if err != nil {
		return nil
	}
	var missing []string
	for _, name := range r.names {
		for _, rel := range rels {
			if name != rel && !strings.HasPrefix(name, rel+"/") {
				continue
			}
			if _, err := os.Lstat(filepath.Join(root, name)); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, filepath.Join(root, name))
			}
			break
		}
	}
	return missing
}
