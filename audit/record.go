package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"iter"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
)

// files is a record's directories and host-run files, by their paths
// relative to the root: the inode of each that was provably in place at
// the start, and the listing of each directory whose entries did not
// change. A record holds as many as the tree (a sandbox makes empty
// directories by the hundred thousand, and the supervisor holds the
// record for the whole session), so it is one string of their paths and
// listings and a slice of fixed-size items pointing into it, sorted by
// path: 32 bytes an entry beside its path and its name in its parent's
// listing, where maps of strings and slices of entries took 220.
type files struct {
	// names holds each item's path and listing; while the record is
	// taken, build does, in the walk's order.
	names string
	build []byte
	items []file
}

// file is one path of a record: an inode (hasInode) and a listing
// (hasListing, the directory's status change and how it was walked), at
// offsets in the record's names.
type file struct {
	path    uint32
	pathLen uint16
	mode    mode
	has     uint8
	ino     uint64
	ctime   int64
	list    uint32
	listLen uint32
}

const (
	hasInode = 1 << iota
	hasListing
)

// fileSize is a file's size as Encode writes it.
const fileSize = 32

// listing is a directory's listing in a record: its inode, the mode it
// was walked in, its status change (nanoseconds), and what the walk
// judged or went into there (entries, as appendEntry writes them).
type listing struct {
	ino     uint64
	mode    mode
	ctime   int64
	entries string
}

// appendEntry appends to a listing's entries the entry name, of type
// typ: a byte saying whether it is a directory, the name, a NUL (which no
// name holds).
func appendEntry(b []byte, name string, typ os.FileMode) []byte {
	kind := byte('f')
	if typ.IsDir() {
		kind = 'd'
	}
	b = append(b, kind)
	b = append(b, name...)
	return append(b, 0)
}

// each is the listing's entries: each name, and os.ModeDir for a
// directory.
func (l listing) each() iter.Seq2[string, os.FileMode] {
	return func(yield func(string, os.FileMode) bool) {
		for rest := l.entries; len(rest) > 1; {
			end := strings.IndexByte(rest, 0)
			if end < 1 {
				return
			}
			typ := os.FileMode(0)
			if rest[0] == 'd' {
				typ = os.ModeDir
			}
			if !yield(rest[1:end], typ) {
				return
			}
			rest = rest[end+1:]
		}
	}
}

// add appends f, at rel, with the listing entries, to what is taken. One
// that does not fit the offsets is not recorded: what a record lacks
// counts as new at the end.
func (fs *files) add(f file, rel string, entries []byte) {
	if len(rel) > math.MaxUint16 || uint64(len(fs.build))+uint64(len(rel))+uint64(len(entries)) > math.MaxUint32 {
		return
	}
	f.path, f.pathLen = uint32(len(fs.build)), uint16(len(rel))
	fs.build = append(fs.build, rel...)
	f.list, f.listLen = uint32(len(fs.build)), uint32(len(entries))
	fs.build = append(fs.build, entries...)
	fs.items = append(fs.items, f)
}

// absorb adds what each of others took to what fs took, and drops theirs.
func (fs *files) absorb(others []*files) {
	size, count := len(fs.build), len(fs.items)
	for _, o := range others {
		size, count = size+len(o.build), count+len(o.items)
	}
	if size > math.MaxUint32 {
		return
	}
	fs.build, fs.items = slices.Grow(fs.build, size-len(fs.build)), slices.Grow(fs.items, count-len(fs.items))
	for _, o := range others {
		shift := uint32(len(fs.build))
		fs.build = append(fs.build, o.build...)
		for _, f := range o.items {
			f.path += shift
			f.list += shift
			fs.items = append(fs.items, f)
		}
		*o = files{}
	}
}

// seal ends the taking: the items sorted by path, and their paths and
// listings in that order (so that two walks of the same tree make the
// same record).
func (fs *files) seal() {
	b := fs.build
	pathOf := func(f file) []byte { return b[f.path : f.path+uint32(f.pathLen)] }
	slices.SortFunc(fs.items, func(x, y file) int { return bytes.Compare(pathOf(x), pathOf(y)) })
	// Each path is added once; were one added twice, the record would
	// hold nothing there, which the end takes for new.
	items := fs.items[:0]
	for _, f := range fs.items {
		if n := len(items); n > 0 && bytes.Equal(pathOf(items[n-1]), pathOf(f)) {
			items[n-1].has = 0
			continue
		}
		items = append(items, f)
	}
	size := 0
	for _, f := range items {
		size += int(f.pathLen) + int(f.listLen)
	}
	var names strings.Builder
	names.Grow(size)
	for i, f := range items {
		items[i].path = uint32(names.Len())
		names.Write(pathOf(f))
		items[i].list = uint32(names.Len())
		names.Write(b[f.list : f.list+f.listLen])
	}
	fs.names, fs.build, fs.items = names.String(), nil, slices.Clip(items)
}

// find is the item at rel.
func (fs *files) find(rel string) (file, bool) {
	i, ok := slices.BinarySearchFunc(fs.items, rel, func(f file, rel string) int {
		return strings.Compare(fs.names[f.path:f.path+uint32(f.pathLen)], rel)
	})
	if !ok {
		return file{}, false
	}
	return fs.items[i], true
}

// inode is the inode recorded at rel.
func (fs *files) inode(rel string) (uint64, bool) {
	f, ok := fs.find(rel)
	return f.ino, ok && f.has&hasInode != 0
}

// listing is the listing recorded for the directory rel.
func (fs *files) listing(rel string) (listing, bool) {
	f, ok := fs.find(rel)
	if !ok {
		return listing{}, false
	}
	return fs.listingOf(f)
}

// listingOf is the listing the item f records, if it records one.
func (fs *files) listingOf(f file) (listing, bool) {
	if f.has&hasListing == 0 {
		return listing{}, false
	}
	return listing{ino: f.ino, mode: f.mode, ctime: f.ctime, entries: fs.names[f.list : f.list+f.listLen]}, true
}

// appendTo appends fs, sealed, to b: the count of items and the bytes of
// the names, the names, the items.
func (fs *files) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(fs.items)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(fs.names)))
	b = append(b, fs.names...)
	for _, f := range fs.items {
		b = binary.LittleEndian.AppendUint32(b, f.path)
		b = binary.LittleEndian.AppendUint16(b, f.pathLen)
		b = append(b, byte(f.mode), f.has)
		b = binary.LittleEndian.AppendUint64(b, f.ino)
		b = binary.LittleEndian.AppendUint64(b, uint64(f.ctime))
		b = binary.LittleEndian.AppendUint32(b, f.list)
		b = binary.LittleEndian.AppendUint32(b, f.listLen)
	}
	return b
}

var errBadRecord = errors.New("not a record of this claudebox's")

// decodeFiles reads what appendTo wrote: every offset within the names,
// the paths in order.
func decodeFiles(b []byte) (files, error) {
	if len(b) < 16 {
		return files{}, errBadRecord
	}
	count, size := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	b = b[16:]
	if size > uint64(len(b)) || count != uint64(len(b)-int(size))/fileSize || uint64(len(b)-int(size))%fileSize != 0 {
		return files{}, errBadRecord
	}
	fs := files{names: string(b[:size]), items: make([]file, count)}
	b = b[size:]
	for i := range fs.items {
		r := b[i*fileSize:]
		f := file{
			path: binary.LittleEndian.Uint32(r), pathLen: binary.LittleEndian.Uint16(r[4:]),
			mode: mode(r[6]), has: r[7],
			ino: binary.LittleEndian.Uint64(r[8:]), ctime: int64(binary.LittleEndian.Uint64(r[16:])),
			list: binary.LittleEndian.Uint32(r[24:]), listLen: binary.LittleEndian.Uint32(r[28:]),
		}
		if uint64(f.path)+uint64(f.pathLen) > size || uint64(f.list)+uint64(f.listLen) > size ||
			i > 0 && fs.names[fs.items[i-1].path:fs.items[i-1].path+uint32(fs.items[i-1].pathLen)] >= fs.names[f.path:f.path+uint32(f.pathLen)] {
			return files{}, errBadRecord
		}
		fs.items[i] = f
	}
	return fs, nil
}

// appendRest appends to b what a record holds beside its files, field by
// field: counts, numbers and the lengths of strings as varints, each map
// in the order of its keys (so that one record is always the same bytes).
func (s *Snapshot) appendRest(b []byte) []byte {
	num := func(v uint64) { b = binary.AppendUvarint(b, v) }
	str := func(v string) {
		num(uint64(len(v)))
		b = append(b, v...)
	}
	num(uint64(len(s.Index)))
	for _, dir := range slices.Sorted(maps.Keys(s.Index)) {
		str(dir)
		entries := s.Index[dir]
		num(uint64(len(entries)))
		for _, name := range slices.Sorted(maps.Keys(entries)) {
			str(name)
			b = append(b, entries[name])
		}
	}
	num(uint64(len(s.IndexFiles)))
	for _, dir := range slices.Sorted(maps.Keys(s.IndexFiles)) {
		f := s.IndexFiles[dir]
		str(dir)
		num(f.Ino)
		num(uint64(f.Size))
		num(uint64(f.Ctime))
	}
	summed := func(rel string, f PackFile) {
		str(rel)
		num(f.Ino)
		num(uint64(f.Size))
		num(uint64(f.Ctime))
		b = append(b, f.Sum[:]...)
	}
	num(uint64(len(s.Packs)))
	for _, rel := range slices.Sorted(maps.Keys(s.Packs)) {
		summed(rel, s.Packs[rel])
	}
	num(uint64(len(s.Reflogs)))
	for _, rel := range slices.Sorted(maps.Keys(s.Reflogs)) {
		summed(rel, PackFile(s.Reflogs[rel]))
	}
	num(uint64(len(s.Obeyed)))
	for _, name := range s.Obeyed {
		str(name)
	}
	str(s.Root)
	num(s.Dev)
	return append(b, s.Rules[:]...)
}

// recordReader reads what appendRest wrote; a read past the end, or a
// count larger than what is left could hold, makes it bad.
type recordReader struct {
	b   []byte
	bad bool
}

func (r *recordReader) num() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.b, r.bad = nil, true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count is a count of entries, each of at least one byte.
func (r *recordReader) count() int {
	n := r.num()
	if n > uint64(len(r.b)) {
		r.b, r.bad = nil, true
		return 0
	}
	return int(n)
}

func (r *recordReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.b, r.bad = nil, true
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *recordReader) str() string { return string(r.bytes(r.num())) }

// decodeRest reads what appendRest wrote, the whole of b.
func decodeRest(b []byte) (*Snapshot, error) {
	r := &recordReader{b: b}
	s := &Snapshot{Index: map[string]map[string]uint8{}, IndexFiles: map[string]IndexFile{}, Packs: map[string]PackFile{}, Reflogs: map[string]Reflog{}}
	for range r.count() {
		dir := r.str()
		entries := map[string]uint8{}
		for range r.count() {
			name := r.str()
			if flags := r.bytes(1); len(flags) == 1 {
				entries[name] = flags[0]
			}
		}
		s.Index[dir] = entries
	}
	for range r.count() {
		dir := r.str()
		s.IndexFiles[dir] = IndexFile{Ino: r.num(), Size: int64(r.num()), Ctime: int64(r.num())}
	}
	for _, summed := range []func(string, PackFile){
		func(rel string, f PackFile) { s.Packs[rel] = f },
		func(rel string, f PackFile) { s.Reflogs[rel] = Reflog(f) },
	} {
		for range r.count() {
			rel := r.str()
			f := PackFile{Ino: r.num(), Size: int64(r.num()), Ctime: int64(r.num())}
			copy(f.Sum[:], r.bytes(sha256.Size))
			summed(rel, f)
		}
	}
	if n := r.count(); n > 0 {
		s.Obeyed = make([]string, n)
		for i := range s.Obeyed {
			s.Obeyed[i] = r.str()
		}
	}
	s.Root = r.str()
	s.Dev = r.num()
	copy(s.Rules[:], r.bytes(sha256.Size))
	if r.bad || len(r.b) > 0 {
		return nil, errBadRecord
	}
	return s, nil
}
