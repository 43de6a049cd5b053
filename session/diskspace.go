package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// minFreeState is the room a launch needs in claudebox's state directory:
// its records, the instance's copies and the session's logs. Below it the
// launch refuses before it starts anything, rather than fail halfway with
// stand-ins made and records cut short.
const minFreeState = 4 << 20

// minFreeStateInodes is the same room in files: a first session makes
// about eighty there (its sockets, records, the instance and the undo
// store), and its snapshot one more for each new file of the project.
// With a few free, the launch failed on its sockets, or its session ran
// with its records cut short.
const minFreeStateInodes = 1024

// checkStateSpace refuses a launch whose state directory's filesystem is
// full (of blocks, or of inodes), naming it.
func checkStateSpace(state string) error {
	st, ok := stateDisk(state)
	if !ok {
		return nil
	}
	return diskFull(st, state, minFreeState, minFreeStateInodes, freeStateHint)
}

// diskFull refuses, naming path, a filesystem with under minBytes or
// minInodes free; one that counts no inodes (btrfs) by its blocks alone.
func diskFull(st unix.Statfs_t, path string, minBytes, minInodes uint64, fix string) error {
	free := uint64(st.Bavail) * uint64(st.Bsize)
	var what string
	switch {
	case free < minBytes:
		what = fmt.Sprintf("%d KiB free of the %d MiB a session needs", free>>10, minBytes>>20)
	case st.Files > 0 && st.Ffree < minInodes:
		what = fmt.Sprintf("%d inodes free of the %d a session needs", st.Ffree, minInodes)
	default:
		return nil
	}
	return hint.Errorf(fix, "the disk holding %s is full (%s)", path, what)
}

// minFreeProject and minFreeProjectInodes are the room a launch needs on
// the checkout's disk: its stand-ins (a directory, on ext4, takes a block)
// and the keeper of a repository's worktrees, with its lock file. On a
// full disk the launch failed halfway, raw (mkdir: no space left on
// device), and its failure's cleanup took the keeper it had made half, its
// lock file empty, for what a session left, moved it aside and named the
// mv that put it back.
const (
	minFreeProject       = 1 << 20
	minFreeProjectInodes = 256
)

// checkProjectSpace refuses a launch whose checkout's filesystem is full
// (of blocks, or of inodes), naming it, before it makes anything there.
func checkProjectSpace(checkout string) error {
	var st unix.Statfs_t
	if unix.Statfs(checkout, &st) != nil {
		return nil
	}
	return diskFull(st, checkout, minFreeProject, minFreeProjectInodes, "free some space there, then start claudebox again")
}

// stateDisk reads the filesystem of the state directory, or, where it is
// not made yet, of its nearest parent.
func stateDisk(state string) (unix.Statfs_t, bool) {
	var st unix.Statfs_t
	for dir := state; ; dir = filepath.Dir(dir) {
		err := unix.Statfs(dir, &st)
		if err == nil {
			return st, true
		}
		if !errors.Is(err, unix.ENOENT) || dir == filepath.Dir(dir) {
			return st, false
		}
	}
}

// sayNoUndoRoom says, as the launch takes its undo snapshot, that the
// state directory's disk has less free than the snapshot leaves spare
// (undo.StoreReserve): the snapshot keeps no file's content then, and
// --undo restores only what an earlier snapshot kept. Said only by --undo,
// the user learnt it once the session's work could no longer be undone.
func sayNoUndoRoom(state string) {
	st, ok := stateDisk(state)
	if free := uint64(st.Bavail) * uint64(st.Bsize); ok && free < undo.StoreReserve {
		printable.Say(os.Stderr, "claudebox: the disk holding %s is nearly full (%d KiB free, under the %d MiB the undo snapshot leaves spare): the snapshot keeps no new copy of a file, and --undo may not restore what this session changes", state, free>>10, undo.StoreReserve>>20)
		printable.Say(os.Stderr, "hint: %s", freeStateHint)
	}
}

const freeStateHint = "free some space there (claudebox --gc removes the instances of projects that are gone)"

// sayFullDisk says, at a session's end, that the state directory's disk
// is full, naming it: what the session wrote there may be cut short, and
// the next launch refuses until there is room.
func sayFullDisk(state string) {
	if err := checkStateSpace(state); err != nil {
		printable.Say(os.Stderr, "claudebox: %v: what the session wrote there (its conversation, the prompt history, what the exit audit moved aside) may be cut short", err)
		printable.Say(os.Stderr, "hint: %s", hint.Of(err))
	}
}
