package undo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// The exit's walk of a large checkout was mostly reading directories that
// had not changed. Each exit keeps, in the undo store (which no sandbox
// sees), the names of every directory it read whose status was from before
// its session's start, with that directory's inode and status change
// time: the next exit takes the names of a directory whose inode and
// status change time are still those, and whose status is from before its
// own start, from the record instead of reading the directory. Any change
// to a directory's names (a file made, removed or renamed there, a
// directory moved in) changes its status change time, which no one can set
// back, and a directory made since has a time of its own; the inode tells
// a directory moved over another. The record keeps only directories whose
// time was from before the session's start when read, so a change made
// while the walk read one (after that start) moves the time past the one
// kept. What a file in such a directory holds is still judged by the
// file's own status, read as before.
//
// Only where the checkout lies on the undo store's filesystem: there a
// status change time compares with the start's to the nanosecond
// (SharesClock).

// dirsMagic begins a record of directories; then the filesystem's device,
// and each directory: the lengths of its path and of its names, its
// inode, its status change time (nanoseconds), its path, and its names,
// sorted, each a type (as getdents gives it), the name, a NUL. A record
// of the first version, whose names are as they were read, is none: the
// next exit reads every directory once more.
const dirsMagic = "claudebox dirs 2\n"

// dirHeader is the length of a directory's fixed fields.
const dirHeader = 4 + 4 + 8 + 8

// dirsLimit bounds a record (a million files in 50,000 directories take
// 11 MB): past it, none is kept, and the next exit reads every directory.
const dirsLimit = 64 << 20

// dirsName is the record of checkout's directories in its project's store.
func dirsName(checkout string) string { return instance.Hash(checkout) + ".dirs" }

// dirRecords is what one exit's walk takes from the last record of its
// checkout's directories and keeps for the next.
type dirRecords struct {
	// dev is the undo store's filesystem: the checkout's top must lie on
	// it.
	dev uint64
	// known is the last exit's record, mapped (nil for none); at, the
	// offsets of its directories, sorted by path.
	known []byte
	at    []uint32

	mu sync.Mutex
	// out are the directories this walk read and keeps; taken, the
	// offsets of those it took from known, kept again; size, the
	// length of the record they make; full, past dirsLimit (none is
	// kept).
	out   []byte
	taken []uint32
	size  int
	full  bool
}

// dirsOf reads the record of the checkout's directories (none where the
// checkout is not on the store's filesystem, or the record is unreadable:
// every directory is then read); nil where none is to be kept either.
func (st store) dirsOf(checkout string) *dirRecords {
	var store, top unix.Stat_t
	if unix.Stat(st.dir, &store) != nil || unix.Stat(checkout, &top) != nil || store.Dev != top.Dev {
		return nil
	}
	d := &dirRecords{dev: store.Dev}
	f, err := os.Open(filepath.Join(st.dir, dirsName(checkout)))
	if err != nil {
		return d
	}
	defer f.Close()
	var sx unix.Stat_t
	if unix.Fstat(int(f.Fd()), &sx) != nil || sx.Size < int64(len(dirsMagic)+8) || sx.Size > dirsLimit {
		return d
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(sx.Size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return d
	}
	at, ok := parseDirs(data, store.Dev)
	if !ok {
		unix.Munmap(data)
		return d
	}
	d.known, d.at = data, at
	return d
}

// parseDirs are the offsets of the directories a record holds, sorted by
// path; ok is false unless the record is whole, of the filesystem dev.
func parseDirs(b []byte, dev uint64) ([]uint32, bool) {
	if !bytes.HasPrefix(b, []byte(dirsMagic)) || len(b) < len(dirsMagic)+8 || binary.LittleEndian.Uint64(b[len(dirsMagic):]) != dev {
		return nil, false
	}
	var at []uint32
	for off := len(dirsMagic) + 8; off < len(b); {
		if len(b)-off < dirHeader {
			return nil, false
		}
		n := dirHeader + int(binary.LittleEndian.Uint32(b[off:])) + int(binary.LittleEndian.Uint32(b[off+4:]))
		if n > len(b)-off {
			return nil, false
		}
		at = append(at, uint32(off))
		off += n
	}
	// writeTo writes them sorted: sorting again took a tenth of a second
	// of 50,000 directories.
	byPath := func(x, y uint32) int { return bytes.Compare(dirPath(b, x), dirPath(b, y)) }
	if !slices.IsSortedFunc(at, byPath) {
		slices.SortFunc(at, byPath)
	}
	return at, true
}

// dirPath is the path of the directory at off in the record b.
func dirPath(b []byte, off uint32) []byte {
	n := binary.LittleEndian.Uint32(b[off:])
	return b[off+dirHeader : off+dirHeader+n]
}

// comparePath orders the path p against rel, as strings.Compare, without
// making a string of p.
func comparePath(p []byte, rel string) int {
	switch {
	case string(p) < rel:
		return -1
	case string(p) > rel:
		return 1
	}
	return 0
}

// names are the names the record holds of the directory rel, if its inode
// and status change time (nanoseconds) are ino and ctime, and where the
// record holds them (for keepTaken).
func (d *dirRecords) names(rel string, ino uint64, ctime int64) (names []byte, at uint32, ok bool) {
	at, ok = d.find(rel)
	if !ok || !d.same(at, ino, ctime) {
		return nil, 0, false
	}
	return d.namesAt(at), at, true
}

// find is where the record holds the directory rel.
func (d *dirRecords) find(rel string) (uint32, bool) {
	if d == nil || d.known == nil {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(d.at, rel, func(off uint32, rel string) int { return comparePath(dirPath(d.known, off), rel) })
	if !found {
		return 0, false
	}
	return d.at[i], true
}

// same says whether the directory at off in the record had the inode ino
// and the status change time ctime.
func (d *dirRecords) same(off uint32, ino uint64, ctime int64) bool {
	return binary.LittleEndian.Uint64(d.known[off+8:]) == ino && int64(binary.LittleEndian.Uint64(d.known[off+16:])) == ctime
}

// namesAt are the names of the directory at off in the record.
func (d *dirRecords) namesAt(off uint32) []byte {
	p, n := binary.LittleEndian.Uint32(d.known[off:]), binary.LittleEndian.Uint32(d.known[off+4:])
	start := off + dirHeader + p
	return d.known[start : start+n]
}

// keepTaken keeps again the directory at off in the record, whose names
// names gave.
func (d *dirRecords) keepTaken(off uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.grow(dirHeader + int(binary.LittleEndian.Uint32(d.known[off:])+binary.LittleEndian.Uint32(d.known[off+4:]))) {
		d.taken = append(d.taken, off)
	}
}

// grow counts n bytes more of the record, and says whether they fit.
func (d *dirRecords) grow(n int) bool {
	if d.full || d.size+n > dirsLimit {
		d.full, d.out, d.taken = true, nil, nil
		return false
	}
	d.size += n
	return true
}

// keep adds the directory rel, of inode ino and status change time ctime,
// read, holding names (as a record holds them, in the order they were
// read), to the record being made, its names sorted: the next exit
// checks them against the index's files, sorted too, in one pass.
func (d *dirRecords) keep(rel string, ino uint64, ctime int64, names []byte) {
	var spans [][]byte
	for len(names) > 1 {
		end := bytes.IndexByte(names[1:], 0)
		if end < 0 {
			break
		}
		spans = append(spans, names[:end+2])
		names = names[end+2:]
	}
	slices.SortFunc(spans, func(x, y []byte) int { return bytes.Compare(x[1:len(x)-1], y[1:len(y)-1]) })
	size := 0
	for _, n := range spans {
		size += len(n)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.grow(dirHeader + len(rel) + size) {
		return
	}
	d.out = binary.LittleEndian.AppendUint32(d.out, uint32(len(rel)))
	d.out = binary.LittleEndian.AppendUint32(d.out, uint32(size))
	d.out = binary.LittleEndian.AppendUint64(d.out, ino)
	d.out = binary.LittleEndian.AppendUint64(d.out, uint64(ctime))
	d.out = append(d.out, rel...)
	for _, n := range spans {
		d.out = append(d.out, n...)
	}
}

// appendName adds the name, of type typ, to names as a record holds them.
func appendName(names, name []byte, typ uint8) []byte {
	names = append(names, typ)
	names = append(names, name...)
	return append(names, 0)
}

// recordedNames are the names of a record's directory and their types;
// each name is followed by a NUL (for dirent.StatAt).
func recordedNames(b []byte) iter.Seq2[[]byte, uint8] {
	return func(yield func([]byte, uint8) bool) {
		for len(b) > 1 {
			end := slices.Index(b[1:], 0)
			if end < 0 {
				return
			}
			if !yield(b[1:1+end], b[0]) {
				return
			}
			b = b[end+2:]
		}
	}
}

// close keeps the record made (none past its bound) for the checkout's
// next exit, and releases the last. Where the walk read no directory it
// could keep, the last record stays as it is: what it holds of a
// directory that changed since no longer matches that directory.
func (d *dirRecords) close(st store, checkout string) {
	if d == nil {
		return
	}
	path := filepath.Join(st.dir, dirsName(checkout))
	switch {
	case d.full:
		os.Remove(path)
	case d.out != nil:
		atomicfile.WriteFrom(path, 0o600, false, d.writeTo)
	}
	if d.known != nil {
		unix.Munmap(d.known)
	}
	d.known, d.at, d.out, d.taken = nil, nil, nil, nil
}

// writeTo writes the record made: the directories read and those taken
// from the last record, sorted by path.
func (d *dirRecords) writeTo(f io.Writer) error {
	var dirs [][]byte
	for off := 0; off < len(d.out); {
		n := dirHeader + int(binary.LittleEndian.Uint32(d.out[off:])+binary.LittleEndian.Uint32(d.out[off+4:]))
		dirs = append(dirs, d.out[off:off+n])
		off += n
	}
	for _, off := range d.taken {
		n := dirHeader + binary.LittleEndian.Uint32(d.known[off:]) + binary.LittleEndian.Uint32(d.known[off+4:])
		dirs = append(dirs, d.known[off:off+n])
	}
	slices.SortFunc(dirs, func(x, y []byte) int { return bytes.Compare(dirPath(x, 0), dirPath(y, 0)) })
	w := bufio.NewWriterSize(f, 64<<10)
	w.WriteString(dirsMagic)
	w.Write(binary.LittleEndian.AppendUint64(nil, d.dev))
	for _, dir := range dirs {
		w.Write(dir)
	}
	return w.Flush()
}

// nameBufs are the walk's buffers of a directory's names, reused.
var nameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}
