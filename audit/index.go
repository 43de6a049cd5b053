package audit

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
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
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, "", errIndex
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, "", errIndex
	}
	count := binary.BigEndian.Uint32(b[8:])
	fixed := 40 + hashLen + 2
	if uint64(count) > uint64(len(b))/uint64(fixed) {
		return nil, "", errIndex
	}
	out := map[string]uint8{}
	rest := b[12:]
	var prev []byte
	for range count {
		if len(rest) < fixed {
			return nil, "", errIndex
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
				return nil, "", errIndex
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
				return nil, "", errIndex
			}
			n += used
			end := bytes.IndexByte(rest[n:], 0)
			if end < 0 {
				return nil, "", errIndex
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], rest[n:n+end]...)
			n += end + 1
		} else {
			end := bytes.IndexByte(rest[n:], 0)
			if end < 0 {
				return nil, "", errIndex
			}
			name = rest[n : n+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			n = (n + end + 8) &^ 7
			if n > len(rest) {
				return nil, "", errIndex
			}
		}
		if bits != 0 {
			out[string(name)] = bits
		}
		prev = name
		rest = rest[n:]
	}
	// The extensions, then the checksum: a "link" one starts with the
	// shared index's object name (all zeros: none).
	for len(rest) >= 8+hashLen {
		size := uint64(binary.BigEndian.Uint32(rest[4:]))
		if size > uint64(len(rest)-8-hashLen) {
			return nil, "", errIndex
		}
		if string(rest[:4]) == "link" {
			if size < uint64(hashLen) {
				return nil, "", errIndex
			}
			if oid := rest[8 : 8+hashLen]; !bytes.Equal(oid, make([]byte, hashLen)) {
				return out, hex.EncodeToString(oid), nil
			}
		}
		rest = rest[8+size:]
	}
	return out, "", nil
}

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
