package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// git-lfs keeps a file's content in the git directory, under
// lfs/objects/<aa>/<bb>/<sha256>, and its checkout (the smudge filter)
// copies the object of the pointer's name and size into the work tree
// without hashing it: an object rewritten with other content of that
// size is what the host's next checkout writes (git worktree add,
// claudebox -w, a switch of branches), a hook among it, while git status
// shows nothing. So every file there whose status changed since the start
// must be an object that holds what its name says, where git-lfs looks it
// up; anything else is a finding, and git-lfs fetches a missing object
// again.

// lfsObjectHolds says whether the entry name of n, a directory of
// lfs/objects, is a regular file, not sparse, at the path git-lfs reads
// it by, whose content hashes to its name within the objects' budget.
func (w *walker) lfsObjectHolds(n node, name string) bool {
	fan, top := filepath.Base(n.rel), filepath.Dir(n.rel)
	if len(name) != 2*sha256.Size || !isHex(name) || fan != name[2:4] || filepath.Base(top) != name[:2] || filepath.Base(filepath.Dir(top)) != "objects" {
		return false
	}
	fd, err := unix.Openat(n.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	// Sparse is what no download writes: a hole of a terabyte would hold
	// the session's end the whole budget.
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Blocks*512 < st.Size {
		return false
	}
	h := sha256.New()
	ctx, cancel := w.objects.ctx()
	defer cancel()
	if _, err := io.Copy(h, &ctxReader{ctx, f}); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == name
}
