package undo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/untrusted"
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
		for _, name := range checkoutRecords(c) {
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

// checkoutRecords are the names of the files a project's store keeps of
// its checkout beside its snapshots: its index, the record of its last
// session's changes, of its directories, of the files git compares, and
// whether its list of ignored files outlasted the start's wait.
func checkoutRecords(checkout string) []string {
	hash := instance.Hash(checkout)
	return []string{hash + ".index", hash + ".index.tree", changesName(checkout), dirsName(checkout), comparedName(checkout), listedName(checkout)}
}

// Move carries the undo store of the project at oldRoot to newRoot, where
// --move took its instance: its snapshots of the main checkout then name
// the new one, and its objects are read through the project's at its new
// place. Left under the old hash, no --undo found them, and nothing ever
// removed them. Where newRoot has a store already (--merge), the old one
// goes. It can be run again after an interruption.
func Move(stateDir, oldRoot, newRoot string) error {
	records := filepath.Join(stateDir, instance.UndoRecords)
	oldHash, newHash := instance.Hash(oldRoot), instance.Hash(newRoot)
	if _, err := os.Lstat(filepath.Join(records, oldHash)); err == nil {
		if _, err := os.Lstat(filepath.Join(records, newHash)); err == nil {
			return untrusted.RemoveAll(records, oldHash)
		}
		if err := untrusted.Rename(records, oldHash, newHash); err != nil {
			return err
		}
	}
	st := storeOf(stateDir, newRoot)
	for _, kind := range []string{"*.snapshot", "*.pending"} {
		names, _ := filepath.Glob(filepath.Join(st.dir, kind))
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				continue
			}
			if moved := bytes.Replace(data, []byte("checkout "+oldRoot+"\n"), []byte("checkout "+newRoot+"\n"), 1); !bytes.Equal(moved, data) {
				if err := writeRecord(n, moved); err != nil {
					return err
				}
			}
		}
	}
	// The record of the last session's changes is --changes' at the new
	// place; the index of the old path names what no launch reads again.
	if b, err := os.ReadFile(filepath.Join(st.dir, changesName(oldRoot))); err == nil {
		var c Changes
		if json.Unmarshal(b, &c) == nil && c.Checkout == oldRoot {
			c.Checkout = newRoot
			if b, err := json.MarshalIndent(c, "", "  "); err == nil {
				if err := writeRecord(filepath.Join(st.dir, changesName(newRoot)), append(b, '\n')); err != nil {
					return err
				}
			}
		}
	}
	for _, name := range checkoutRecords(oldRoot) {
		os.Remove(filepath.Join(st.dir, name))
	}
	alternates := filepath.Join(st.gitDir, "objects", "info", "alternates")
	if b, err := os.ReadFile(alternates); err == nil {
		dir := strings.TrimSpace(string(b))
		if rel, err := filepath.Rel(oldRoot, dir); err == nil && filepath.IsLocal(rel) {
			return writeRecord(alternates, []byte(filepath.Join(newRoot, rel)+"\n"))
		}
	}
	return nil
}
