package undo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// The store reads through its alternates the blobs the project's objects
// already hold, and git add copies none of them. A staged change's
// content is one of them, a loose object no commit holds: a session
// removing it and writing the file left --undo with nothing to restore,
// and the user's staged work, of which no other copy exists, was lost.
// So a snapshot copies into the store each loose object of the project's
// that a file it hashed names; a packed one is the project's history,
// which --undo does not keep, unless HEAD does not hold it (keepPacked).

// hashedPaths keeps the paths git add --verbose says it wrote ("add
// 'PATH'", unquoted), up to hashedLimit of them: the first snapshot of a
// tree of millions would hold them all. A path holding a newline is
// printed over two lines, which spell no path whole: has takes it for
// one git wrote.
type hashedPaths struct {
	paths map[string]bool
	// over: more were written than kept.
	over bool
	part []byte
}

// A variable: the tests lower it.
var hashedLimit = 100_000

// has says git add may have written path: one it said it wrote, or one
// its line cannot spell (a sandbox naming a directory "x\ny" had a file
// git read through it taken for one git did not hash).
func (h *hashedPaths) has(path string) bool {
	return h.paths[path] || strings.ContainsRune(path, '\n')
}

func (h *hashedPaths) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		line, rest, whole := bytes.Cut(b, []byte("\n"))
		if !whole {
			if len(h.part) < 1<<16 {
				h.part = append(h.part, line...)
			}
			break
		}
		line = append(h.part, line...)
		h.part, b = h.part[:0], rest
		if path, ok := bytes.CutPrefix(line, []byte("add '")); ok {
			if len(h.paths) >= hashedLimit {
				h.over = true
			} else {
				h.paths[string(bytes.TrimSuffix(path, []byte("'")))] = true
			}
		}
	}
	return n, nil
}

// keepLoose copies into the store each loose object of objects (the
// project's) that entries name at the paths git add just wrote (hashed),
// and that the store lacks, each at most what budget leaves; it returns
// the bytes it copied. What git add did not hash again, an earlier
// snapshot had. Past hashedLimit paths, the objects' directories are read
// instead: as many names as objects git keeps loose (a few thousand
// before git gc packs them).
//
// Each such blob the project holds only packed is added to packed
// (keepPacked's), unless past hashedLimit.
func (st store) keepLoose(ctx context.Context, objects string, entries []staged, hashed *hashedPaths, budget int64, packed map[string]bool) int64 {
	var loose map[string]bool
	if hashed.over {
		loose = looseIn(objects)
	}
	var copied int64
	done := map[string]bool{}
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		if e.mode == "160000" || !isObjectName(e.oid) || done[e.oid] {
			continue
		}
		if hashed.over && !loose[e.oid] || !hashed.over && !hashed.has(e.path) {
			continue
		}
		done[e.oid] = true
		var sx unix.Stat_t
		if unix.Lstat(filepath.Join(st.gitDir, "objects", e.oid[:2], e.oid[2:]), &sx) != nil {
			n, absent := st.copyObject(objects, e.oid, budget-copied)
			copied += n
			if absent && !hashed.over {
				packed[e.oid] = true
			}
		}
	}
	return copied
}

// looseLimit bounds the names looseIn keeps: git packs its loose objects
// past a few thousand, and a session can leave millions of names there.
const looseLimit = 200_000

// looseIn names the objects objects holds loose, up to looseLimit.
func looseIn(objects string) map[string]bool {
	loose := map[string]bool{}
	for i := range 256 {
		dir := strconv.FormatInt(int64(0x100+i), 16)[1:]
		f, err := untrusted.OpenDir(objects, dir)
		if err != nil {
			continue
		}
		// A part at a time.
		for len(loose) < looseLimit {
			names, err := f.Readdirnames(4096)
			for _, name := range names {
				loose[dir+name] = true
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return loose
}

// copyObject copies the loose object oid of objects into the store, where
// it takes at most budget bytes, and returns the bytes copied, and
// whether objects holds it not loose. What the file holds is checked, as
// every blob, when --undo reads it.
func (st store) copyObject(objects, oid string, budget int64) (int64, bool) {
	dir := filepath.Join(st.gitDir, "objects", oid[:2])
	src, err := untrusted.Open(objects, filepath.Join(oid[:2], oid[2:]))
	if err != nil {
		return 0, errors.Is(err, fs.ErrNotExist)
	}
	defer src.Close()
	var sx unix.Stat_t
	if unix.Fstat(int(src.Fd()), &sx) != nil || sx.Size > budget || isSparse(&sx) {
		return 0, false
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, false
	}
	// git's own name for an object being written: git prune removes one
	// left behind.
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return 0, false
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(src, sx.Size))
	if cerr := tmp.Close(); err != nil || cerr != nil || n != sx.Size {
		return 0, false
	}
	if os.Chmod(tmp.Name(), 0o444) != nil || os.Rename(tmp.Name(), filepath.Join(dir, oid[2:])) != nil {
		return 0, false
	}
	return n, false
}
