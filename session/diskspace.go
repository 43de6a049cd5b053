package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
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
	var st unix.Statfs_t
	for dir := state; ; dir = filepath.Dir(dir) {
		err := unix.Statfs(dir, &st)
		if err == nil {
			break
		}
		// Not made yet: its filesystem is its parent's.
		if !errors.Is(err, unix.ENOENT) || dir == filepath.Dir(dir) {
			return nil
		}
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)
	switch {
	case free < minFreeState:
		return fullDisk(state, fmt.Sprintf("%d KiB free of the 4 MiB a session needs", free>>10))
	case st.Files > 0 && st.Ffree < minFreeStateInodes:
		return fullDisk(state, fmt.Sprintf("%d inodes free of the %d a session needs", st.Ffree, minFreeStateInodes))
	}
	return nil
}

func fullDisk(state, what string) error {
	return hint.Errorf("free some space there (claudebox --gc removes the instances of projects that are gone)",
		"the disk holding %s is full (%s)", state, what)
}

// sayFullDisk says, at a session's end, that the state directory's disk
// is full, naming it: what the session wrote there may be cut short, and
// the next launch refuses until there is room.
func sayFullDisk(state string) {
	if err := checkStateSpace(state); err != nil {
		printable.Say(os.Stderr, "claudebox: %v: what the session wrote there (its conversation, the prompt history, what the exit audit moved aside) may be cut short", err)
		printable.Say(os.Stderr, "hint: %s", hint.Of(err))
	}
}
