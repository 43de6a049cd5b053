package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/instance"
)

// Checkouts are the checkouts the undo store of project root keeps
// snapshots of: its own, and each linked worktree a session ran in.
func Checkouts(stateDir, root string) []string {
	st := storeOf(stateDir, root)
	var checkouts []string
	for _, kind := range []string{"*.snapshot", "*.pending"} {
		names, _ := filepath.Glob(filepath.Join(st.dir, kind))
		for _, n := range names {
			data, _ := os.ReadFile(n)
			for line := range strings.SplitSeq(string(data), "\n") {
				if c, ok := strings.CutPrefix(line, "checkout "); ok && filepath.IsAbs(c) {
					checkouts = append(checkouts, c)
				}
			}
		}
	}
	slices.Sort(checkouts)
	return slices.Compact(checkouts)
}

// Forget removes what the undo store of project root keeps of each of
// checkouts (gone: a worktree removed): their snapshots and lists, the
// store's index of each and its record of changes, and the objects only
// they held. Only a launch in a checkout dropped its snapshots, so a
// worktree made for a task and removed kept its own, and every file
// they alone held, for as long as the project lived.
func Forget(stateDir, root string, checkouts []string) {
	st := storeOf(stateDir, root)
	var dropped int64
	for _, c := range checkouts {
		for _, s := range st.list(c) {
			for _, ext := range []string{".snapshot", ".pending", ".ignored", ".listing"} {
				os.Remove(filepath.Join(st.dir, s.ID+ext))
			}
			dropped += max(s.added, droppedAtLeast)
		}
		hash := instance.Hash(c)
		for _, name := range []string{hash + ".index", hash + ".index.tree", changesName(c)} {
			os.Remove(filepath.Join(st.dir, name))
		}
	}
	if dropped == 0 {
		return
	}
	// Now, rather than once enough is owed: --gc is asked to free disk.
	if st.pruneObjects(context.Background()) {
		os.Remove(filepath.Join(st.dir, "unpruned"))
	} else {
		st.pruneSome(context.Background(), dropped)
	}
}
