package undo

import (
	"context"
	"io"
	"os"
	"path/filepath"
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
// which --undo does not keep.

// keepLoose copies into the store each loose object of objects (the
// project's) that entries name at the paths git add just wrote (its
// verbose output, added), and that the store lacks, each at most what
// budget leaves; it returns the bytes it copied. What git add did not
// hash again, an earlier snapshot had.
func (st store) keepLoose(ctx context.Context, objects string, entries []staged, added string, budget int64) int64 {
	paths := map[string]bool{}
	for line := range strings.SplitSeq(added, "\n") {
		// add 'PATH', unquoted: a name holding "'\n" only hides itself.
		if path, ok := strings.CutPrefix(line, "add '"); ok {
			paths[strings.TrimSuffix(path, "'")] = true
		}
	}
	var copied int64
	done := map[string]bool{}
	for _, e := range entries {
		if ctx.Err() != nil {
			break
		}
		if !paths[e.path] || e.mode == "160000" || !isObjectName(e.oid) || done[e.oid] {
			continue
		}
		done[e.oid] = true
		var sx unix.Stat_t
		if unix.Lstat(filepath.Join(st.gitDir, "objects", e.oid[:2], e.oid[2:]), &sx) != nil {
			copied += st.copyObject(objects, e.oid, budget-copied)
		}
	}
	return copied
}

// copyObject copies the loose object oid of objects into the store, where
// it takes at most budget bytes, and returns the bytes copied. What the file holds is checked, as every
// blob, when --undo reads it.
func (st store) copyObject(objects, oid string, budget int64) int64 {
	dir := filepath.Join(st.gitDir, "objects", oid[:2])
	src, err := untrusted.Open(objects, filepath.Join(oid[:2], oid[2:]))
	if err != nil {
		return 0
	}
	defer src.Close()
	var sx unix.Stat_t
	if unix.Fstat(int(src.Fd()), &sx) != nil || sx.Size > budget || isSparse(&sx) {
		return 0
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0
	}
	// git's own name for an object being written: git prune removes one
	// left behind.
	tmp, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return 0
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(src, sx.Size))
	if cerr := tmp.Close(); err != nil || cerr != nil || n != sx.Size {
		return 0
	}
	if os.Chmod(tmp.Name(), 0o444) != nil || os.Rename(tmp.Name(), filepath.Join(dir, oid[2:])) != nil {
		return 0
	}
	return n
}
