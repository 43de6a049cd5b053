package audit

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

// git-annex keeps a file's content there too, under
// annex/objects/<xx>/<yy>/<key>/<key>, and commits a link to it in the
// work tree, which the host follows wherever it reads or runs the file;
// only git annex fsck checks the content against the key. So, as for
// git-lfs, every file there whose status changed since the start must
// hold what its key says (a key of a backend that hashes the content);
// anything else is a finding, and git annex get fetches it again.

// lfsObjectHolds says whether the entry name of n, a directory of
// lfs/objects, is a regular file, not sparse, at the path git-lfs reads
// it by, whose content hashes to its name within the objects' budget.
func (w *walker) lfsObjectHolds(n node, name string) bool {
	fan, top := filepath.Base(n.rel), filepath.Dir(n.rel)
	if len(name) != 2*sha256.Size || !isHex(name) || fan != name[2:4] || filepath.Base(top) != name[:2] || filepath.Base(filepath.Dir(top)) != "objects" {
		return false
	}
	return w.hashesTo(n, name, sha256.New(), -1, name)
}

// annexHashes are git-annex's backends that name content by its hash, each
// with and without the file's extension (SHA256E), by the hash's name.
// Not BLAKE2's and Skein's, which the standard library lacks, nor WORM's
// and URL's keys, which hold no hash: such an object whose status changed
// since the start is moved aside, the host's own git annex add during a
// session too.
var annexHashes = map[string]func() hash.Hash{
	"SHA256": sha256.New, "SHA512": sha512.New, "SHA384": sha512.New384, "SHA224": sha256.New224, "SHA1": sha1.New, "MD5": md5.New,
	"SHA3_224": func() hash.Hash { return sha3.New224() }, "SHA3_256": func() hash.Hash { return sha3.New256() },
	"SHA3_384": func() hash.Hash { return sha3.New384() }, "SHA3_512": func() hash.Hash { return sha3.New512() },
}

// annexObjectHolds says whether the entry name of n, a directory of
// annex/objects, is a regular file, not sparse, in the directory of its
// name as git-annex lays them out, whose name is a key of a hashing
// backend that its size and content, hashed within the objects' budget,
// match.
func (w *walker) annexObjectHolds(n node, name string) bool {
	if filepath.Base(n.rel) != name || !strings.Contains(n.rel, "annex"+string(filepath.Separator)+"objects"+string(filepath.Separator)) {
		return false
	}
	fields, rest, ok := strings.Cut(name, "--")
	if !ok {
		return false
	}
	backend, size, sized := strings.Cut(fields, "-s")
	newHash, ok := annexHashes[strings.TrimSuffix(backend, "E")]
	if !ok {
		return false
	}
	h := newHash()
	digest := rest
	if strings.HasSuffix(backend, "E") {
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			digest = rest[:i]
		}
	}
	if len(digest) != 2*h.Size() || !isHex(digest) {
		return false
	}
	want := int64(-1)
	if sized {
		var err error
		if want, err = strconv.ParseInt(size, 10, 64); err != nil || want < 0 {
			return false
		}
	}
	return w.hashesTo(n, name, h, want, digest)
}

// hashesTo says whether the entry name of n is a regular file, not
// sparse (what no download writes: a hole of a terabyte would hold the
// session's end the whole budget), of size bytes unless that is -1, whose
// content h hashes to digest (in hex) within the objects' budget.
func (w *walker) hashesTo(n node, name string, h hash.Hash, size int64, digest string) bool {
	fd, err := unix.Openat(n.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Blocks*512 < st.Size || size >= 0 && st.Size != size {
		return false
	}
	ctx, cancel := w.objects.ctx()
	defer cancel()
	if _, err := io.Copy(h, &ctxReader{ctx, f}); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == digest
}
