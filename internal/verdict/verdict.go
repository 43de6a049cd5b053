// Package verdict keeps what a launch judged of the files it reads for a
// credential (a skill's bundled JavaScript, a plugin's data, a script of
// ~/bin or /usr/local/bin): every launch read and judged each of them
// whole, about 3 ms a MiB, so a home with 20 MiB of plugins paid it at
// every launch. A verdict is kept in claudebox's state directory for the
// file as the judge opened it (its device, inode, size, modification and
// status-change times to the nanosecond, its path and the judge's kind)
// and for the claudebox executable that judged it, and is used again only
// for the same file unchanged: a write, a rename or times set back
// (touch -d) change its status-change time, which nothing sets back.
//
// The record lies in the state directory, which no sandbox is shown (its
// instance, the one part of it a sandbox may write, is a directory below):
// a verdict a sandbox could write would let a credential cross. It is read
// as hostile input all the same: a record that is not whole (its
// checksum), of another executable, or over its bound is not used.
package verdict

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/untrusted"
)

// recordName is the record's name in the state directory.
const recordName = "verdicts"

// The record's bounds: a larger one is not read (a launch reads it
// whole), and a launch keeps at most maxEntries verdicts: a /usr/local
// of global npm packages and documentation is tens of thousands of
// files.
const (
	maxRecord  = 16 << 20
	maxEntries = 100000
)

// settled is how long before the launch a file must have last changed
// for its verdict to be kept: a file changed again within its
// filesystem's timestamp granularity (a jiffy; FAT's two seconds) could
// keep its status-change time, and that change would go unjudged.
const settled = 2 * time.Second

// magic begins the record; its last byte is the format's version.
var magic = []byte("claudebox verdicts\x01")

// key is what a verdict is kept for: the judge, the path judged and the
// file as it was opened.
type key struct {
	kind, path   string
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

// Cache is the verdicts of one launch: those the record held, and those
// used or made now (marked so), which the launch writes back.
type Cache struct {
	mu      sync.Mutex
	dir     string
	judge   [32]byte // the executable's identity
	known   map[key]mark
	changed bool
	now     func() time.Time
}

// mark is a kept verdict, and whether this launch used or made it:
// marked in place, as a second map of the used ones grew by thousands
// of entries at every launch over a /usr/local of packages.
type mark uint8

const (
	holds mark = 1 << iota // the judge's verdict
	used
)

var (
	activeMu sync.Mutex
	active   *Cache
	users    int
)

// Use reads the record in the state directory stateDir for the judges
// that run until done is called, which writes it back where a verdict
// was made. Launches nest in tests: the first one's record is used.
func Use(stateDir string) (done func()) {
	activeMu.Lock()
	defer activeMu.Unlock()
	if users++; users == 1 {
		active = load(stateDir, time.Now)
	}
	return func() {
		activeMu.Lock()
		defer activeMu.Unlock()
		if users--; users == 0 {
			active.save()
			active = nil
		}
	}
}

// load reads the record in dir; nil where there is no executable to
// key verdicts by.
func load(dir string, now func() time.Time) *Cache {
	id, ok := executable()
	if !ok {
		return nil
	}
	c := &Cache{dir: dir, judge: id, known: map[key]mark{}, now: now}
	if b, err := untrusted.ReadFile(dir, recordName, maxRecord); err == nil {
		c.known = parse(b, id)
	}
	return c
}

// executable is the identity of the running claudebox's file: another
// build judges by other rules.
func executable() (id [32]byte, ok bool) {
	fi, err := os.Stat("/proc/self/exe")
	if err != nil {
		return id, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	var b []byte
	for _, v := range []int64{int64(st.Dev), int64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return sha256.Sum256(b), true
}

// A File is the file a judge reads, opened once: the verdict is kept for
// it as it was opened.
type File struct {
	f   *os.File
	err error
}

// Read reads the file whole from its start, up to limit (untrusted's
// errors: ErrTooLarge over it), or says why it could not be opened.
func (f File) Read(limit int64) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	return untrusted.ReadAgain(f.f, limit)
}

// Head is the file's first n bytes, fewer where it is shorter.
func (f File) Head(n int) []byte {
	if f.err != nil {
		return nil
	}
	b := make([]byte, n)
	m, _ := f.f.ReadAt(b, 0)
	return b[:m]
}

// Judge is what judge says of the file name in dir (opened as untrusted
// opens it: no link in name, a regular file only), kind naming the judge:
// the verdict kept for the file as it is, or judge's, kept for the next
// launch. A file that cannot be opened is judged each time (File's Read
// says why).
func Judge(kind, dir, name string, judge func(File) bool) bool {
	activeMu.Lock()
	c := active
	activeMu.Unlock()
	return c.verdict(kind, dir, name, judge)
}

// JudgeAt is Judge for the file name in the directory open at dirfd,
// whose path is dir: the kept verdict is looked up by the file's status
// read through dirfd, no link followed, rather than by its path walked
// again (a walk of a /usr/local of packages looks up thousands).
func JudgeAt(kind string, dirfd int, dir, name string, judge func(File) bool) bool {
	activeMu.Lock()
	c := active
	activeMu.Unlock()
	if c != nil {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			if v, hit := c.keptStat(kind, filepath.Join(dir, name), &st); hit {
				return v
			}
		}
	}
	return c.verdict(kind, dir, name, judge)
}

// verdict is Judge's by the launch's verdicts c (none where c is nil).
func (c *Cache) verdict(kind, dir, name string, judge func(File) bool) bool {
	path := filepath.Join(dir, name)
	if v, hit := c.kept(kind, path); hit {
		return v
	}
	f, err := untrusted.Open(dir, name)
	if err != nil {
		return judge(File{err: err})
	}
	defer f.Close()
	if c == nil {
		return judge(File{f: f})
	}
	return c.judged(kind, path, f, judge)
}

// kept is the verdict kept for the regular file at path as it is now,
// read by its status alone: a verdict is of the file its device,
// inode, size and times name, whatever path led to it, and opening
// each of a /usr/local's thousands of files took most of a launch's
// look at them.
func (c *Cache) kept(kind, path string) (v, hit bool) {
	var st unix.Stat_t
	if c == nil || unix.Lstat(path, &st) != nil {
		return false, false
	}
	return c.keptStat(kind, path, &st)
}

// keptStat is the verdict kept for the file at path whose status, no
// link followed, is st: a regular file's only.
func (c *Cache) keptStat(kind, path string, st *unix.Stat_t) (v, hit bool) {
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false, false
	}
	k := keyFrom(kind, path, st)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.use(k)
}

// use is the verdict kept for k, marked used; c.mu is held.
func (c *Cache) use(k key) (v, hit bool) {
	m, hit := c.known[k]
	if hit && m&used == 0 {
		c.known[k] = m | used
	}
	return m&holds != 0, hit
}

// judged is Judge's verdict for the open file f at path.
func (c *Cache) judged(kind, path string, f *os.File, judge func(File) bool) bool {
	k, ok := keyOf(kind, path, f)
	if !ok {
		return judge(File{f: f})
	}
	c.mu.Lock()
	v, hit := c.use(k)
	c.mu.Unlock()
	if hit {
		return v
	}
	v = judge(File{f: f})
	// Kept only for a file unchanged while it was judged, which last
	// changed long enough ago that a change now moves its times.
	if after, ok := keyOf(kind, path, f); ok && after == k && c.now().Add(-settled).UnixNano() > k.ctime {
		m := used
		if v {
			m |= holds
		}
		c.mu.Lock()
		c.known[k], c.changed = m, true
		c.mu.Unlock()
	}
	return v
}

// keyOf is what the verdict of the open file f at path is kept for.
func keyOf(kind, path string, f *os.File) (key, bool) {
	if len(path) > 0xffff || len(kind) > 0xff {
		return key{}, false
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return key{}, false
	}
	var st unix.Stat_t
	var statErr error
	if err := raw.Control(func(fd uintptr) { statErr = unix.Fstat(int(fd), &st) }); err != nil || statErr != nil {
		return key{}, false
	}
	return keyFrom(kind, path, &st), true
}

// keyFrom is the key of the file at path whose status is st.
func keyFrom(kind, path string, st *unix.Stat_t) key {
	return key{kind: kind, path: path, dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// save writes the verdicts this launch used or made, where it made one,
// with those of the record's files no launch has changed since (another
// project's setup), up to the bound.
func (c *Cache) save() {
	if c == nil || !c.changed {
		return
	}
	keep := map[key]bool{}
	for k, m := range c.known {
		if m&used != 0 && len(keep) < maxEntries {
			keep[k] = m&holds != 0
		}
	}
	for k, m := range c.known {
		if len(keep) >= maxEntries {
			break
		}
		if m&used == 0 && unchanged(k) {
			keep[k] = m&holds != 0
		}
	}
	b := format(keep, c.judge)
	if len(b) > maxRecord {
		return
	}
	atomicfile.WriteFrom(filepath.Join(c.dir, recordName), 0o600, false, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// unchanged says the file k was kept for is still there as it was.
func unchanged(k key) bool {
	var st unix.Stat_t
	return unix.Lstat(k.path, &st) == nil && keyFrom(k.kind, k.path, &st) == k
}

// format is the record of verdicts for the executable judge: magic, the
// executable's identity, each verdict (its verdict byte, kind, path,
// device, inode, size, times), and a CRC-32C of all before it.
func format(verdicts map[key]bool, judge [32]byte) []byte {
	b := append(bytes.Clone(magic), judge[:]...)
	for k, v := range verdicts {
		b = append(b, 0)
		if v {
			b[len(b)-1] = 1
		}
		b = append(b, byte(len(k.kind)))
		b = append(b, k.kind...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(k.path)))
		b = append(b, k.path...)
		for _, n := range []uint64{k.dev, k.ino, uint64(k.size), uint64(k.mtime), uint64(k.ctime)} {
			b = binary.LittleEndian.AppendUint64(b, n)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// castagnoli is CRC-32C's table, made at its first use: made at the
// package's start, it cost every process of a launch (the watcher, the
// relay) its making.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// errRecord says a record is not whole or not this executable's.
var errRecord = errors.New("not a record of this claudebox's verdicts")

// parse reads the record b of the executable judge; none where it is not
// whole, not its, or holds more than maxEntries.
func parse(b []byte, judge [32]byte) map[key]mark {
	verdicts := map[key]mark{}
	if err := parseInto(verdicts, b, judge); err != nil {
		return map[key]mark{}
	}
	return verdicts
}

func parseInto(verdicts map[key]mark, b []byte, judge [32]byte) error {
	head := len(magic) + len(judge)
	if len(b) < head+4 || !bytes.Equal(b[:len(magic)], magic) || !bytes.Equal(b[len(magic):head], judge[:]) {
		return errRecord
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli()) != sum {
		return errRecord
	}
	r := body[head:]
	take := func(n int) ([]byte, error) {
		if n > len(r) {
			return nil, errRecord
		}
		t := r[:n]
		r = r[n:]
		return t, nil
	}
	for len(r) > 0 {
		if len(verdicts) >= maxEntries {
			return errRecord
		}
		v, err := take(2)
		if err != nil {
			return err
		}
		kind, err := take(int(v[1]))
		if err != nil {
			return err
		}
		n, err := take(2)
		if err != nil {
			return err
		}
		path, err := take(int(binary.LittleEndian.Uint16(n)))
		if err != nil {
			return err
		}
		nums, err := take(5 * 8)
		if err != nil {
			return err
		}
		num := func(i int) uint64 { return binary.LittleEndian.Uint64(nums[i*8:]) }
		if v[0] > 1 {
			return errRecord
		}
		k := key{kind: string(kind), path: string(path), dev: num(0), ino: num(1), size: int64(num(2)), mtime: int64(num(3)), ctime: int64(num(4))}
		verdicts[k] = mark(v[0])
	}
	return nil
}
