package audit

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/gitconfig"
)

// A repository's objects are data, but git reads each by its name alone,
// never checking its content against the name (only git fsck does): a
// loose object rewritten in place, or a pack whose index gives an
// object's name to other content, is what the host's next checkout of
// that name writes into the work tree (git worktree add, a switch of
// branches, a clone), a hook or an .envrc among it, while git status and
// git diff show nothing. So at the end every loose object and pack the
// session wrote is checked against its name, and what git trusts in
// their place without checking (a multi-pack index, the commit graph,
// alternates naming other object stores, any other file beside the
// packs) is taken for a finding when written: git goes without the
// caches and writes them again.

// objectsBudget bounds the time the checks of one audit take: a session
// can write a small object that inflates to a terabyte. What is left
// unchecked when it runs out is a finding.
const objectsBudget = 5 * time.Minute

// objects is what one audit's walkers share of the objects' checks.
type objects struct {
	once     sync.Once
	deadline time.Time
	mu       sync.Mutex
	packs    map[string]packHeld // by a pack's directory and base name
	// packedRefs are packedRefsObeyed's answers by the file's identity:
	// hard links of one packed-refs in many git directories are one
	// file, read once (a session's 50 links of one of 128 MiB were read
	// 50 times, 7.5 s, and 10,000 would have held the end for 25 minutes).
	packedRefs map[fileID][2]bool
}

// fileID is a file as its status tells it: the same for each of its hard
// links, and another once it changes.
type fileID struct {
	dev, ino uint64
	size     int64
	ctime    int64
	mtime    int64
}

func (o *objects) ctx() (context.Context, context.CancelFunc) {
	o.once.Do(func() { o.deadline = time.Now().Add(objectsBudget) })
	return context.WithDeadline(context.Background(), o.deadline)
}

// objectsEntry judges an entry of a git directory's objects, or of a
// directory in it, as entry does: whether it is judged, and, if a
// directory, in which mode it is walked.
func objectsEntry(m mode, name string) (sub mode, hostRun, descend bool) {
	switch m {
	case objectsDir:
		switch {
		case name == "pack":
			return packDir, true, true
		case name == "info":
			return objInfoDir, true, true
		case len(name) == 2 && isHex(name):
			return looseDir, true, true
		case strings.HasPrefix(name, "tmp_objdir-"):
			// git's temporary object stores (a push's quarantine, a
			// remerge diff's), which only the command that made it
			// reads.
			return 0, false, false
		}
		// git reads nothing else there; a later git may.
		return 0, true, false
	case looseDir:
		return 0, true, false
	case packDir:
		switch {
		case name == "multi-pack-index.d":
			// git 2.47's incremental multi-pack index: a chain of
			// layers, each a multi-pack index, which a layer
			// rewritten in place changes no status of.
			return allDir, true, true
		case strings.HasPrefix(name, "tmp_") || strings.HasSuffix(name, ".keep") || strings.HasSuffix(name, ".promisor"):
			// Git's temporary files, which it never reads, and what
			// it reads only as flags (keep this pack; it came from a
			// promisor remote).
			return 0, false, false
		}
		// Anything else is judged: a pack, its index and its reverse
		// index are checked; the rest git trusts unchecked (a
		// multi-pack index, a bitmap, a cruft pack's object times), or
		// a later git may read it.
		return 0, true, false
	case objInfoDir:
		if name == "commit-graphs" {
			return allDir, true, true
		}
		// Anything else is judged, but packs: the list of packs git
		// update-server-info writes (git repack runs it) for dumb
		// HTTP's clients, which git reads nothing of here. A later git
		// may read another name.
		return 0, name != "packs", false
	}
	return 0, false, false
}

// objectHolds says whether the entry name of n (at rel, of status st), a
// loose object or a pack (or its index) whose status changed since the
// start, holds what its name says; false for anything else there.
func (w *walker) objectHolds(n node, name, rel string, st *unix.Stat_t) bool {
	if n.mode == looseDir {
		return w.looseHolds(n, name)
	}
	base, ok := strings.CutSuffix(name, ".pack")
	if !ok {
		base, ok = strings.CutSuffix(name, ".idx")
	}
	if rev, isRev := strings.CutSuffix(name, ".rev"); !ok && isRev {
		return w.packHolds(n, rev).rev
	}
	if !ok {
		return false
	}
	// Git touches a pack that holds an object it would write (its
	// modification time, which keeps it from being pruned), which changes
	// its status: one that holds the start's bytes is the start's.
	if was, ok := w.start.Packs[rel]; ok && was.Ino == st.Ino && was.Size == st.Size {
		if sum, err := packSum(n.fd, name); err == nil && sum == was.Sum {
			return true
		}
	}
	return w.packHolds(n, base).pack
}

// PackFile is a pack or a pack's index as the start found it: its inode,
// size, status change (nanoseconds) and digest.
type PackFile struct {
	Ino   uint64
	Size  int64
	Ctime int64
	Sum   [sha256.Size]byte
}

// takePack records the pack file name of n, at rel, of status st: its
// digest, an earlier record's while its status is the one that record
// read (a launch reads a pack of gigabytes only after git touched it).
func (w *walker) takePack(n node, name, rel string, st *unix.Stat_t) {
	if !strings.HasSuffix(name, ".pack") && !strings.HasSuffix(name, ".idx") || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	now := PackFile{Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}
	if was, ok := w.base.packs()[rel]; ok && was.Ino == now.Ino && was.Size == now.Size && was.Ctime == now.Ctime {
		now.Sum = was.Sum
	} else if sum, err := packSum(n.fd, name); err == nil {
		now.Sum = sum
	} else {
		return
	}
	w.take.Packs[rel] = now
}

func (s *Snapshot) packs() map[string]PackFile {
	if s == nil {
		return nil
	}
	return s.Packs
}

// packSum is the digest of the regular file name in the directory fd. A
// sparse one (no pack git writes is) is not read: a session can leave a
// pack of a terabyte that takes no disk, which every launch would read.
func packSum(fd int, name string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return sum, err
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(ffd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Blocks*512+1<<20 < st.Size {
		return sum, errors.New("not a regular file, or a sparse one")
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// looseHolds says whether the loose object name, in the fan-out directory
// n, inflates to an object whose name is the directory's and its own.
func (w *walker) looseHolds(n node, name string) bool {
	want := n.rel[len(n.rel)-2:] + name
	var h hash.Hash
	switch len(want) {
	case 2 * sha1.Size:
		h = sha1.New()
	case 2 * sha256.Size:
		h = sha256.New()
	default:
		return false
	}
	fd, err := unix.Openat(n.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	z, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return false
	}
	r := bufio.NewReader(z)
	header, err := r.ReadSlice(0)
	if err != nil {
		return false
	}
	kind, size, ok := strings.Cut(string(header[:len(header)-1]), " ")
	length, err := strconv.ParseInt(size, 10, 64)
	if !ok || err != nil || length < 0 || kind != "blob" && kind != "tree" && kind != "commit" && kind != "tag" {
		return false
	}
	h.Write(header)
	ctx, cancel := w.objects.ctx()
	defer cancel()
	copied, err := io.Copy(h, &ctxReader{ctx, io.LimitReader(r, length+1)})
	return err == nil && copied == length && hex.EncodeToString(h.Sum(nil)) == want
}

// ctxReader reads r until ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// packHeld is what a pack holds: whether its pack and index hold what
// the index names, and whether its reverse index (base.rev), which git
// reads for the order of the pack's objects by offset, is the one they
// make.
type packHeld struct{ pack, rev bool }

// packHolds says what the pack base (base.pack, base.idx, base.rev) in n
// holds: git index-pack --verify reads every object of the pack, names
// it, and compares the index (and the reverse index, where there is one)
// it would write with the one there. Run outside any repository (the
// pack's own would have git read its config), on the directory n reached
// without a symlink, after the files were found regular files, bounded by
// the budget; once with the reverse index, and, where that fails, again
// without it.
func (w *walker) packHolds(n node, base string) packHeld {
	key := n.rel + "/" + base
	w.objects.mu.Lock()
	held, seen := w.objects.packs[key]
	w.objects.mu.Unlock()
	if seen {
		return held
	}
	held = w.verifyPack(n, base)
	w.objects.mu.Lock()
	w.objects.packs[key] = held
	w.objects.mu.Unlock()
	return held
}

func (w *walker) verifyPack(n node, base string) packHeld {
	regular := func(name string) bool {
		var st unix.Stat_t
		return unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
	}
	if !regular(base+".pack") || !regular(base+".idx") {
		return packHeld{}
	}
	if regular(base+".rev") && w.indexPack(n, base, true) {
		return packHeld{pack: true, rev: true}
	}
	return packHeld{pack: w.indexPack(n, base, false)}
}

// indexPack runs git index-pack --verify on the pack base in n, with its
// reverse index or without.
func (w *walker) indexPack(n node, base string, rev bool) bool {
	ctx, cancel := w.objects.ctx()
	defer cancel()
	c := exec.CommandContext(ctx, "git", "-c", "pack.writeReverseIndex="+strconv.FormatBool(rev), "index-pack", "--verify", "--object-format="+n.objectFormat, base+".pack")
	// The child changes into it before it runs git, while it still holds
	// the descriptor.
	c.Dir = "/proc/self/fd/" + strconv.Itoa(n.fd)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_DIR=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
	// Apart from the terminal's signals, as the exit's other gits are.
	c.SysProcAttr = &unix.SysProcAttr{Pdeathsig: unix.SIGKILL, Setpgid: true}
	return c.Run() == nil
}

// objectFormat is the object format of the git directory fd: sha256
// where its config says so.
func objectFormat(fd int) string {
	b, err := readAt(fd, "config", 1<<20)
	if err != nil || !bytes.Contains(bytes.ToLower(b), []byte("sha256")) {
		return "sha1"
	}
	if entries, err := gitconfig.Parse(b); err == nil && strings.EqualFold(gitconfig.Last(entries, "extensions.objectformat"), "sha256") {
		return "sha256"
	}
	return "sha1"
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// packedRefsObeyed says whether the packed refs name in the git
// directory fd hold a replace ref or the stash, or cannot be read to
// tell, and whether they list a ref (a branch, a tag, a remote-tracking
// ref): git checks out, shows and diffs the object a replace ref names in
// place of the one it replaces (refs/replace/<name>), and git stash pop
// writes what the stash holds, neither of which git status ever shows,
// so that the host's next checkout writes the session's hook under the
// name of the project's. It reads them a part at a time: the walk judges
// repositories side by side, and each packed-refs of 256 MiB (sparse,
// taking no disk) held as much of the supervisor's memory. Sparse ones,
// which git never writes, are taken for unreadable. Each file, by its
// identity, is read once an audit (see objects.packedRefs).
func (o *objects) packedRefsObeyed(fd int, name string) (obeyed, branches bool) {
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return true, true
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(ffd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > 256<<20 || st.Blocks*512+1<<20 < st.Size {
		return true, true
	}
	id := fileID{dev: st.Dev, ino: st.Ino, size: st.Size, ctime: st.Ctim.Nano(), mtime: st.Mtim.Nano()}
	o.mu.Lock()
	was, ok := o.packedRefs[id]
	o.mu.Unlock()
	if ok {
		return was[0], was[1]
	}
	obeyed, branches = readPackedRefs(f)
	o.mu.Lock()
	if o.packedRefs == nil {
		o.packedRefs = map[fileID][2]bool{}
	}
	o.packedRefs[id] = [2]bool{obeyed, branches}
	o.mu.Unlock()
	return obeyed, branches
}

// readPackedRefs reads f as packedRefsObeyed says.
func readPackedRefs(f *os.File) (obeyed, branches bool) {
	// A packed ref is a line "<oid> <name>".
	run := [][]byte{[]byte(" refs/replace/"), []byte(" refs/" + stashRef + "\n"), []byte(" refs/" + stashRef + "\r")}
	longest := len(run[0])
	buf := make([]byte, 64<<10)
	kept := 0 // the end of the last part, where a match may begin
	for {
		n, err := f.Read(buf[kept:])
		for _, o := range run {
			if bytes.Contains(buf[:kept+n], o) {
				return true, true
			}
		}
		branches = branches || bytes.Contains(buf[:kept+n], []byte(" refs/"))
		if err != nil {
			// The last line may end with the file.
			return err != io.EOF || bytes.HasSuffix(buf[:kept+n], []byte(" refs/"+stashRef)), branches || err != io.EOF
		}
		k := min(longest-1, kept+n)
		copy(buf, buf[kept+n-k:kept+n])
		kept = k
	}
}
