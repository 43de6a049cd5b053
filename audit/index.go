package audit

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// What of an index entry the host's git follows without showing it.
const (
	// assumeUnchanged (assume-valid) and skipWorktree: git status and git
	// diff say nothing of the file, whatever it now holds.
	assumeUnchanged = 1 << iota
	skipWorktree
	// gitlink: a submodule; the host's git status recurses into the
	// repository at that path and runs what its config says.
	gitlink
	// restat: a file the session changed, whose status data in an index
	// it wrote git would take for the content the entry names, unread.
	restat
)

var errIndex = errors.New("not an index git reads")

// maxIndex bounds the index the audit reads: a large monorepo's is tens of
// megabytes.
const maxIndex = 256 << 20

// parseIndex reads a git index (versions 2 to 4) whose object names are
// hashLen bytes long, and returns the paths of its entries that are hidden
// from git status or are gitlinks, with those bits, and, for a split
// index, the object name (hex) of the shared index it builds on, whose
// entries git reads as its own. It trusts nothing in b: every length is
// checked against what is left.
func parseIndex(b []byte, hashLen int) (map[string]uint8, string, error) {
	out := map[string]uint8{}
	ext, err := eachEntry(b, hashLen, func(e indexEntry) {
		if e.bits != 0 {
			out[string(e.name)] = e.bits
		}
	})
	if err != nil {
		return nil, "", err
	}
	shared, err := sharedIndex(b[ext:], hashLen)
	if err != nil {
		return nil, "", err
	}
	return out, shared, nil
}

// entryNames returns the names of the entries of the index b that are
// files (not gitlinks).
func entryNames(b []byte, hashLen int) ([]string, error) {
	var names []string
	_, err := eachEntry(b, hashLen, func(e indexEntry) {
		if e.bits&gitlink == 0 {
			names = append(names, string(e.name))
		}
	})
	return names, err
}

// indexEntry is an entry of an index: its name, its hidden and gitlink
// bits, and where in the index it starts.
type indexEntry struct {
	name []byte
	bits uint8
	at   int
}

// eachEntry calls visit with each entry of the index b, and returns where
// its extensions start.
func eachEntry(b []byte, hashLen int, visit func(indexEntry)) (int, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return 0, errIndex
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return 0, errIndex
	}
	count := binary.BigEndian.Uint32(b[8:])
	fixed := 40 + hashLen + 2
	if uint64(count) > uint64(len(b))/uint64(fixed) {
		return 0, errIndex
	}
	at := 12
	var prev []byte
	for range count {
		rest := b[at:]
		if len(rest) < fixed {
			return 0, errIndex
		}
		mode := binary.BigEndian.Uint32(rest[24:])
		flags := binary.BigEndian.Uint16(rest[40+hashLen:])
		n := fixed
		var bits uint8
		if flags&0x8000 != 0 {
			bits |= assumeUnchanged
		}
		if flags&0x4000 != 0 {
			if len(rest) < n+2 {
				return 0, errIndex
			}
			if binary.BigEndian.Uint16(rest[n:])&0x4000 != 0 {
				bits |= skipWorktree
			}
			n += 2
		}
		if mode&0o170000 == 0o160000 {
			bits |= gitlink
		}
		var name []byte
		if version == 4 {
			strip, used := varint(rest[n:])
			if used == 0 || strip > uint64(len(prev)) {
				return 0, errIndex
			}
			n += used
			end := bytes.IndexByte(rest[n:], 0)
			if end < 0 {
				return 0, errIndex
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], rest[n:n+end]...)
			n += end + 1
		} else {
			end := bytes.IndexByte(rest[n:], 0)
			if end < 0 {
				return 0, errIndex
			}
			name = rest[n : n+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			n = (n + end + 8) &^ 7
			if n > len(rest) {
				return 0, errIndex
			}
		}
		visit(indexEntry{name: name, bits: bits, at: at})
		prev = name
		at += n
	}
	return at, nil
}

// sharedIndex reads the extensions, then the checksum: a "link" one starts
// with the shared index's object name (all zeros: none), returned in hex.
func sharedIndex(rest []byte, hashLen int) (string, error) {
	for len(rest) >= 8+hashLen {
		size := uint64(binary.BigEndian.Uint32(rest[4:]))
		if size > uint64(len(rest)-8-hashLen) {
			return "", errIndex
		}
		if string(rest[:4]) == "link" {
			if size < uint64(hashLen) {
				return "", errIndex
			}
			if oid := rest[8 : 8+hashLen]; !bytes.Equal(oid, make([]byte, hashLen)) {
				return hex.EncodeToString(oid), nil
			}
		}
		rest = rest[8+size:]
	}
	return "", nil
}

// showAgain returns the index b with the flags that hide them cleared from
// the entries named in paths (as parseIndex's bits, or restat alone), and
// their status data zeroed, as git leaves an entry it has not yet compared with the file:
// the host's git status then reads each file's content, whatever status
// the session wrote into the index to match it. The index's caches of
// what the work tree holds (the untracked cache, the file system
// monitor's) go too: git rebuilds them. A split index is not rewritten.
func showAgain(b []byte, hashLen int, paths map[string]uint8) ([]byte, error) {
	out := bytes.Clone(b)
	ext, err := eachEntry(b, hashLen, func(e indexEntry) {
		bits := paths[string(e.name)]
		if bits == 0 {
			return
		}
		entry := out[e.at:]
		if bits&assumeUnchanged != 0 {
			entry[40+hashLen] &^= 0x80
		}
		if bits&skipWorktree != 0 && entry[40+hashLen]&0x40 != 0 {
			entry[40+hashLen+2] &^= 0x40
		}
		// ctime, mtime (seconds and nanoseconds), and the size.
		clear(entry[0:16])
		clear(entry[36:40])
	})
	if err != nil {
		return nil, err
	}
	if len(b)-ext < hashLen {
		return nil, errIndex
	}
	if shared, err := sharedIndex(b[ext:], hashLen); err != nil || shared != "" {
		return nil, errSplitIndex
	}
	kept := out[:ext]
	for rest := b[ext : len(b)-hashLen]; len(rest) > 0; {
		if len(rest) < 8 || uint64(binary.BigEndian.Uint32(rest[4:])) > uint64(len(rest)-8) {
			return nil, errIndex
		}
		size := int(binary.BigEndian.Uint32(rest[4:]))
		if !derived[string(rest[:4])] {
			kept = append(kept, rest[:8+size]...)
		}
		rest = rest[8+size:]
	}
	if hashLen == sha256.Size {
		sum := sha256.Sum256(kept)
		return append(kept, sum[:]...), nil
	}
	sum := sha1.Sum(kept)
	return append(kept, sum[:]...), nil
}

// workTreeCache says whether the index b holds one of the derived
// extensions: a cache of trees, of untracked files, or the file system
// monitor's.
func workTreeCache(b []byte, hashLen int) bool {
	ext, err := eachEntry(b, hashLen, func(indexEntry) {})
	if err != nil || len(b)-ext < hashLen {
		return false
	}
	for rest := b[ext : len(b)-hashLen]; len(rest) >= 8; {
		size := uint64(binary.BigEndian.Uint32(rest[4:]))
		if derived[string(rest[:4])] {
			return true
		}
		if size > uint64(len(rest)-8) {
			return false
		}
		rest = rest[8+size:]
	}
	return false
}

// DropCaches removes, from the index of each git directory in dirs, its
// derived extensions (see derived), under git's lock, recorded in locks
// while it is held: the host's git status and git commit then compute
// them again from the entries and the work tree.
func DropCaches(dirs []string, locks IndexLocks) error {
	var errs []error
	for _, dir := range dirs {
		if err := showAgainIn(dir, nil, locks); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(dir, "index"), err))
		}
	}
	return errors.Join(errs...)
}

// derived are the index's extensions that git trusts in place of what
// they were computed from, and rebuilds when they are gone: the cache of
// trees (TREE), which git commit writes as the commit's subtrees and git
// status compares with HEAD's instead of the entries (a forged one commits
// a file no git status showed, and hides it after), the untracked cache
// (UNTR) and the file system monitor's (FSMN).
var derived = map[string]bool{"TREE": true, "UNTR": true, "FSMN": true}

var errSplitIndex = errors.New("a split index (git update-index --split-index), which claudebox does not rewrite")

// varint reads git's offset varint, as index version 4 prefixes each name
// with; used is 0 when b holds no whole one or it overflows.
func varint(b []byte) (val uint64, used int) {
	for i, c := range b {
		if i > 0 {
			val++
		}
		if val > 1<<56 {
			return 0, 0
		}
		val = val<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return val, i + 1
		}
	}
	return 0, 0
}

// ShowAgain clears, in each repository's index, the flags that hid the
// entries in hidden from the host's git status (see showAgain), under
// git's own lock (index.lock), recorded in locks while it is held: git
// status and git diff then show what the session changed. It returns
// those it could not show again, and why.
func ShowAgain(hidden []Hidden, locks IndexLocks) (left []Hidden, err error) {
	byDir := map[string][]Hidden{}
	for _, h := range hidden {
		byDir[h.gitDir] = append(byDir[h.gitDir], h)
	}
	var errs []error
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		if err := showAgainIn(dir, byDir[dir], locks); err != nil {
			left = append(left, byDir[dir]...)
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Join(dir, "index"), err))
		}
	}
	return left, errors.Join(errs...)
}

// showAgainIn rewrites the index of the git directory dir, reached
// without a symlink. The new index is written before git's lock is
// taken, as the lock's own file (lockIndex), so that the lock stands only
// for the moment of its rename over the index; an index git replaced
// meanwhile is read again.
func showAgainIn(dir string, hidden []Hidden, locks IndexLocks) error {
	d, err := openRoot(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	fd := int(d.Fd())
	paths := map[string]uint8{}
	for _, h := range hidden {
		paths[h.Path] |= h.bits
	}
	for tries := 1; ; tries++ {
		var read, now unix.Stat_t
		if err := unix.Fstatat(fd, "index", &read, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		b, err := readAt(fd, "index", maxIndex)
		if err != nil {
			return err
		}
		out, err := showAgain(b, hashLen(fd), paths)
		if err != nil {
			return err
		}
		lock, err := locks.lockIndex(fd, dir, out)
		if err != nil {
			return err
		}
		// git replaces its index whole, under the lock: the one read is
		// still there if its file is.
		if unix.Fstatat(fd, "index", &now, unix.AT_SYMLINK_NOFOLLOW) != nil || now.Ino != read.Ino || now.Ctim != read.Ctim || now.Size != read.Size {
			lock.remove()
			if tries < 3 {
				continue
			}
			return errors.New("git rewrote the index meanwhile, again and again")
		}
		if locks.Held != nil {
			locks.Held()
		}
		// The lock is renamed over the index only while it is the file
		// the audit wrote; one another process took since stays its own.
		if !lock.ours() {
			lock.release()
			return errors.New("git's lock (index.lock) was replaced while the audit held it")
		}
		err = unix.Renameat(fd, "index.lock", fd, "index")
		if err != nil {
			lock.remove()
			return err
		}
		lock.release()
		return nil
	}
}

// trackedInWorktree says whether p, a finding, is a file that a linked
// worktree of the project's repository (one git worktree add made inside
// the project) tracks, holding what the worktree's index says: checked
// out from its branch, or staged, which that worktree's git status shows.
// Its index must not hide the entry.
func (w *walker) trackedInWorktree(p string) bool {
	rel, err := filepath.Rel(w.root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	if dir, ok := w.worktreeAbove(filepath.Dir(rel)); ok {
		gitfile, err := w.read(filepath.Join(dir, ".git"))
		if err != nil {
			return false
		}
		admin, err := filepath.Rel(w.root, strings.TrimSuffix(strings.TrimPrefix(string(gitfile), "gitdir: "), "\n"))
		if err != nil || !filepath.IsLocal(admin) {
			return false
		}
		d, err := openRoot(w.abs(admin))
		if err != nil {
			return false
		}
		defer d.Close()
		n := hashLen(int(d.Fd()))
		b, err := readAt(int(d.Fd()), "index", maxIndex)
		if err != nil {
			return false
		}
		content, err := untrusted.ReadFile(w.root, rel, maxIndex)
		if err != nil {
			return false
		}
		name, _ := filepath.Rel(dir, rel)
		want := blobID(content, n)
		match := false
		if _, err := eachEntry(b, n, func(e indexEntry) {
			mode := binary.BigEndian.Uint32(b[e.at+24:])
			if string(e.name) == name && e.bits == 0 && mode&0o170000 == 0o100000 && bytes.Equal(b[e.at+40:e.at+40+n], want) {
				match = true
			}
		}); err != nil {
			return false
		}
		return match
	}
	return false
}

// worktreeAbove is the nearest directory at or above dir (relative to the
// root, the root not counted) that is a linked worktree of the project's
// repository, and whether there is one, each directory looked at once an
// audit.
func (w *walker) worktreeAbove(dir string) (string, bool) {
	if dir == "." {
		return "", false
	}
	if w.worktrees == nil {
		w.worktrees = map[string]string{}
	}
	if wt, ok := w.worktrees[dir]; ok {
		return wt, wt != ""
	}
	wt := ""
	if w.linkedWorktree(w.abs(filepath.Join(dir, ".git"))) {
		wt = dir
	} else {
		wt, _ = w.worktreeAbove(filepath.Dir(dir))
	}
	w.worktrees[dir] = wt
	return wt, wt != ""
}

// blobID is git's object name of a blob holding content.
func blobID(content []byte, hashLen int) []byte {
	header := fmt.Appendf(nil, "blob %d\x00", len(content))
	if hashLen == sha256.Size {
		h := sha256.New()
		h.Write(header)
		h.Write(content)
		return h.Sum(nil)
	}
	h := sha1.New()
	h.Write(header)
	h.Write(content)
	return h.Sum(nil)
}

// Compared are the paths of the entries of an index whose files the host's
// git compares with it (GitCompares), sorted: a path's bytes are those of
// names up to its end, from the previous one's (one string, not one each:
// a million entries' strings cost a tenth of a second of fresh pages).
type Compared struct {
	names string
	ends  []uint32
}

// Has says whether path is one of them.
func (c Compared) Has(path string) bool {
	i := sort.Search(len(c.ends), func(i int) bool { return c.at(i) >= path })
	return i < len(c.ends) && c.at(i) == path
}

// In are the entries of c below the directory rel ("." the top), whose
// names HasName looks up: a directory's walk looks up each of its names
// among its own entries, not the whole index's, and makes no path.
func (c Compared) In(rel string) ComparedIn {
	if rel == "." {
		return ComparedIn{c: c, hi: len(c.ends)}
	}
	lo := sort.Search(len(c.ends), func(i int) bool { return compareBelow(c.at(i), rel, '/') >= 0 })
	hi := sort.Search(len(c.ends), func(i int) bool { return compareBelow(c.at(i), rel, '/'+1) >= 0 })
	return ComparedIn{c: c, lo: lo, hi: hi, skip: len(rel) + 1}
}

// Below are the entries of in below the directory name, an entry of in's
// own directory: the In of that directory, searched within in's range
// only (a walk of 50,000 directories searched the million entries' whole
// index twice for each).
func (in ComparedIn) Below(name string) ComparedIn {
	lo := in.lo + sort.Search(in.hi-in.lo, func(j int) bool { return compareBelow(in.c.at(in.lo + j)[in.skip:], name, '/') >= 0 })
	hi := lo + sort.Search(in.hi-lo, func(j int) bool { return compareBelow(in.c.at(lo + j)[in.skip:], name, '/'+1) >= 0 })
	return ComparedIn{c: in.c, lo: lo, hi: hi, skip: in.skip + len(name) + 1}
}

// ComparedIn are the entries of Compared below one directory (In).
type ComparedIn struct {
	c      Compared
	lo, hi int
	// skip is the length of the directory's path and its slash.
	skip int
}

// HasName says whether the file name, in the directory, is one of them.
func (in ComparedIn) HasName(name []byte) bool {
	i := in.lo + sort.Search(in.hi-in.lo, func(j int) bool { return in.c.at(in.lo + j)[in.skip:] >= string(name) })
	return i < in.hi && in.c.at(i)[in.skip:] == string(name)
}

// Names looks up names among the files of in in increasing order, each
// from where the last was found: one pass over both where HasName
// searches for each. A name out of order is not found.
func (in ComparedIn) Names() *NameCursor { return &NameCursor{in} }

// NameCursor is where Names' lookups have got to.
type NameCursor struct{ in ComparedIn }

// Has says whether the file name, in the directory, is one of them, no
// name before it having been asked for since.
func (c *NameCursor) Has(name []byte) bool {
	for ; c.in.lo < c.in.hi; c.in.lo++ {
		if s := c.in.c.at(c.in.lo)[c.in.skip:]; s >= string(name) {
			return s == string(name)
		}
	}
	return false
}

// compareBelow orders s against rel followed by the byte sep, as
// strings.Compare would against that string, without making it.
func compareBelow(s, rel string, sep byte) int {
	n := min(len(s), len(rel))
	if c := strings.Compare(s[:n], rel[:n]); c != 0 {
		return c
	}
	switch {
	case len(s) <= len(rel) || s[len(rel)] < sep:
		return -1
	case s[len(rel)] > sep || len(s) > len(rel)+1:
		return 1
	}
	return 0
}

func (c Compared) at(i int) string {
	from := uint32(0)
	if i > 0 {
		from = c.ends[i-1]
	}
	return c.names[from:c.ends[i]]
}

// IndexStatus tells an index file from any other, and from itself
// rewritten: its filesystem and inode, its status change time
// (nanoseconds: any write changes it, and no one can set it back) and its
// size.
type IndexStatus struct {
	Dev, Ino uint64
	Ctime    int64
	Size     int64
}

// indexStatus is the status of the index st describes, and whether it is
// one GitCompares reads: a regular file within maxIndex whose status is
// from before since.
func indexStatus(st *unix.Stat_t, since time.Time) (IndexStatus, bool) {
	return IndexStatus{Dev: st.Dev, Ino: st.Ino, Ctime: st.Ctim.Nano(), Size: st.Size},
		st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size <= maxIndex && time.Unix(st.Ctim.Unix()).Before(since)
}

// IndexNow is the status of the index of the git directory gitDir, if it
// is one GitCompares would read for a session that began at since: its
// Compared are those GitCompares gave for an index of the same status.
func IndexNow(gitDir string, since time.Time) (IndexStatus, bool) {
	d, err := openRoot(gitDir)
	if err != nil {
		return IndexStatus{}, false
	}
	defer d.Close()
	var st unix.Stat_t
	if unix.Fstatat(int(d.Fd()), "index", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return IndexStatus{}, false
	}
	return indexStatus(&st, since)
}

// GitCompares returns the paths of the entries of the index of the git
// directory gitDir whose files the host's git status compares with the
// index (neither assume-unchanged nor skip-worktree, no gitlink), where
// that index is one whole file nothing changed since since (its status
// older: no entry added, removed or given another file's status data
// during the session), and that index's status; ok is false otherwise (a
// split index, one changed, unreadable, over maxIndex, or not sorted as
// git writes them).
func GitCompares(gitDir string, since time.Time) (c Compared, read IndexStatus, ok bool) {
	d, err := openRoot(gitDir)
	if err != nil {
		return c, read, false
	}
	defer d.Close()
	indexReading.Lock()
	defer indexReading.Unlock()
	n := hashLen(int(d.Fd()))
	fd, err := unix.Openat(int(d.Fd()), "index", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return c, read, false
	}
	f := os.NewFile(uintptr(fd), "index")
	defer f.Close()
	before := func() bool {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			return false
		}
		now, ok := indexStatus(&st, since)
		// The same status before the read as after: nothing wrote it.
		if read != (IndexStatus{}) && now != read {
			return false
		}
		read = now
		return ok
	}
	fi, err := f.Stat()
	if err != nil || !before() {
		return c, read, false
	}
	// Mapped, not read: the page cache's pages in place.
	err = untrusted.ScanFile(f, fi, maxIndex, func(b []byte) {
		size := 0
		ext, err := eachEntry(b, n, func(e indexEntry) {
			if e.bits == 0 {
				size += len(e.name)
			}
		})
		if err != nil || size > math.MaxUint32 {
			return
		}
		if shared, err := sharedIndex(b[ext:], n); err != nil || shared != "" {
			return
		}
		var names strings.Builder
		names.Grow(size)
		prev, sorted := "", true
		eachEntry(b, n, func(e indexEntry) {
			if e.bits == 0 {
				from := names.Len()
				names.Write(e.name)
				c.ends = append(c.ends, uint32(names.Len()))
				name := names.String()[from:]
				sorted = sorted && prev <= name
				prev = name
			}
		})
		c.names = names.String()
		ok = sorted
	})
	// Its status again: nothing wrote it while it was read.
	if err != nil || !ok || !before() {
		return Compared{}, read, false
	}
	return c, read, true
}

// AppendTo appends c to b as ComparedFrom reads it: the number of paths,
// their ends (in the machine's byte order), then the paths' bytes.
func (c Compared) AppendTo(b []byte) []byte {
	b = binary.NativeEndian.AppendUint32(b, uint32(len(c.ends)))
	for _, e := range c.ends {
		b = binary.NativeEndian.AppendUint32(b, e)
	}
	return append(b, c.names...)
}

// ComparedFrom is the Compared AppendTo wrote at the start of b (aligned
// to 4 bytes), in place: it holds b, which must stay as it is while it is
// used (the undo store's record, mapped). ok is false for one cut short.
func ComparedFrom(b []byte) (c Compared, ok bool) {
	if len(b) < 4 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return c, false
	}
	n := uint64(binary.NativeEndian.Uint32(b))
	if n*4 > uint64(len(b)-4) {
		return c, false
	}
	names := b[4+n*4:]
	if n > 0 {
		c.ends = unsafe.Slice((*uint32)(unsafe.Pointer(&b[4])), n)
		// Each path within the names, as AppendTo wrote them.
		if !slices.IsSorted(c.ends) || uint64(c.ends[n-1]) != uint64(len(names)) {
			return Compared{}, false
		}
	}
	c.names = unsafe.String(unsafe.SliceData(names), len(names))
	return c, true
}
