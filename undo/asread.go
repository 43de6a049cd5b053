package undo

import (
	"context"

	"github.com/claudebox/claudebox/internal/parallel"
)

// notAsHashed lists those of entries git hashed for this snapshot (every
// one where all) whose blob is not what the checkout holds at their path,
// read beneath it without following a link (matches; the store's git
// takes each file as it is: rawAttributes). git add opens the path it
// listed, following a symlink before its last component: a sandbox that
// swaps a directory for a link to a host one (~/.ssh) while git reads has
// the host's file taken into the snapshot, which --undo would then write
// into the project.
func notAsHashed(ctx context.Context, checkout string, entries []staged, hashed *hashedPaths, all bool) []string {
	differs := make([]bool, len(entries))
	parallel.Each(len(entries), func(i int) {
		e := entries[i]
		if ctx.Err() != nil || e.mode == "160000" || !all && !hashed.over && !hashed.has(e.path) {
			return
		}
		same, _ := matches(checkout, e.path, entry{mode: e.mode, oid: e.oid, size: -1}, store{})
		differs[i] = !same
	})
	var out []string
	for i, d := range differs {
		if d {
			out = append(out, entries[i].path)
		}
	}
	return out
}
