package undo

import (
	"context"
	"strings"

	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/untrusted"
)

// notAsHashed lists those of entries git hashed for this snapshot (every
// one where all) whose blob is not what the checkout holds at their path,
// read beneath it without following a link (the store's git takes each
// file as it is: rawAttributes). git add opens the path it listed,
// following a symlink before its last component: a sandbox that swaps a
// directory for a link to a host one (~/.ssh) while git reads has the
// host's file taken into the snapshot, which --undo would then write into
// the project.
func notAsHashed(ctx context.Context, checkout string, entries []staged, hashed *hashedPaths, all bool) []string {
	differs := make([]bool, len(entries))
	parallel.Each(len(entries), func(i int) {
		e := entries[i]
		if ctx.Err() != nil || !all && !hashed.over && !hashed.paths[e.path] {
			return
		}
		switch e.mode {
		case "120000":
			target, err := untrusted.Readlink(checkout, e.path)
			differs[i] = err != nil || blobName(strings.NewReader(target), int64(len(target)), len(e.oid)) != e.oid
		case "100644", "100755":
			differs[i] = !holds(checkout, e)
		}
	})
	var out []string
	for i, d := range differs {
		if d {
			out = append(out, entries[i].path)
		}
	}
	return out
}

// holds says whether the regular file at e's path is e's blob.
func holds(checkout string, e staged) bool {
	f, err := untrusted.Open(checkout, e.path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	return err == nil && blobName(f, fi.Size(), len(e.oid)) == e.oid
}
