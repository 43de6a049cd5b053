package audit

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The guards keep the work tree's files the host runs as they were; the
// session can still commit, with git's plumbing, another content for
// one (git update-index --cacheinfo, git commit), which the next checkout
// of it writes (git restore, git stash, a switch of branches, git
// worktree add, claudebox -w), while git status shows the work tree's
// file, the host's, as the one modified. Such a file is named.

// divergedIn lists the entries of the index of the git directory n (its
// work tree work) that name a file the host runs, whose file in the work
// tree the session left as it was, holding other content than the entry
// names. A split index's entries are not read.
func (w *walker) divergedIn(n node, work string) {
	indexReading.Lock()
	b, err := readAt(n.fd, "index", maxIndex)
	indexReading.Unlock()
	if err != nil {
		return
	}
	size := hashLen(n.fd)
	eachEntry(b, size, func(e indexEntry) {
		p := string(e.name)
		if e.bits&gitlink != 0 || p == "" || !filepath.IsLocal(p) || !w.hostRunPath(work, p) {
			return
		}
		oid := hex.EncodeToString(b[e.at+40 : e.at+40+size])
		if sum, ok := w.unchangedBlob(filepath.Join(work, p), size); ok && sum != oid {
			w.report.Diverged = append(w.report.Diverged, Hidden{Repo: work, Path: p})
		}
	})
}

// hostRunPath says whether the path p of the work tree work is one the
// host runs or obeys: a name of the registry, or below one, or below a
// guarded path (a core.hooksPath directory).
func (w *walker) hostRunPath(work, p string) bool {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		if isObeyed(c, false) || w.guarded[filepath.Join(work, filepath.Join(parts[:i+1]...))] {
			return true
		}
	}
	return false
}

// unchangedBlob is git's name of the blob the file at path holds, when it
// is a regular file or a link whose status is from before the start.
func (w *walker) unchangedBlob(path string, size int) (string, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || w.new(&st) {
		return "", false
	}
	var h hash.Hash = sha1.New()
	if size == 32 {
		h = sha256.New()
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := os.Readlink(path)
		if err != nil {
			return "", false
		}
		h.Write([]byte("blob " + strconv.Itoa(len(target)) + "\x00" + target))
	case unix.S_IFREG:
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err != nil {
			return "", false
		}
		f := os.NewFile(uintptr(fd), path)
		defer f.Close()
		h.Write([]byte("blob " + strconv.FormatInt(st.Size, 10) + "\x00"))
		if n, err := io.Copy(h, io.LimitReader(f, st.Size+1)); err != nil || n != st.Size {
			return "", false
		}
	default:
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
