package session

import (
	"errors"
	"fmt"
	"os"

	"github.com/claudebox/claudebox/hardlink"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
)

// copyLinked makes the project's files that the probe found to be hard
// links to files outside it (a package manager's store, uv's cache, the
// repository a local clone was made from) files of their own, before the
// sandbox can write any: written in place, such a file is the outside
// one too, which the host runs. It says in one line what it copies; the
// copies have one name, so the next launch finds none.
func (s *Session) copyLinked() error {
	for _, path := range hardlink.RemoveLeftovers(s.linked) {
		printable.Say(os.Stderr, "claudebox: removed %s, a copy left by a launch stopped while it copied hard links", path)
	}
	files, bytes, whose := hardlink.Summary(s.linked)
	if files == 0 {
		return nil
	}
	// Said first: a node_modules of 60,000 files takes a minute.
	printable.Say(os.Stderr, "claudebox: copying %d files (%s) that are hard links into %s, so that what the session writes in them stays in the project (once: the copies are the project's own)",
		files, size(bytes), whose)
	_, unreadable, err := hardlink.Break(s.linked)
	for _, path := range unreadable {
		printable.Say(os.Stderr, "claudebox: %s could not be read (chmod 000, the sandbox's doing?): copied with read permission lent for the open, its mode kept", path)
	}
	const install = "or install without links: pnpm install --package-import-method=copy, bun install --backend=copyfile, uv sync --link-mode=copy, git clone --no-hardlinks"
	switch {
	case err == nil:
		return nil
	case errors.Is(err, hardlink.ErrNoRoom):
		return hint.Errorf("free some space on that disk, "+install, "%v", err)
	case errors.Is(err, hardlink.ErrChanged):
		return hint.Errorf("start claudebox again once the tool writing it on the host is done", "%v", err)
	}
	return hint.Errorf("make its directory writable, "+install, "cannot make a file of the project that is a hard link to one outside it a file of its own: %v", err)
}

// size is a number of bytes as a person reads it.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
