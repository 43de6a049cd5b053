package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
)

// sweepKilled removes what sessions whose supervisor was killed left in
// the users' projects, before any command on the host, and says so in one
// line: the stand-ins do not wait for the next launch in their project;
// and says what such a session's exit audit moved aside before it could.
func sweepKilled(state string) {
	session.SayUnsaidMoves(state)
	for _, lock := range session.SweepIndexLocks(state) {
		printable.Say(os.Stderr, "claudebox: removed %s, git's lock on the index, left by a session killed while it rewrote the index", lock)
	}
	removed := instance.SweepKilled(state)
	if len(removed) == 0 {
		return
	}
	under := filepath.Dir(removed[0])
	for _, p := range removed[1:] {
		for under != "/" && !strings.HasPrefix(p, under+"/") {
			under = filepath.Dir(under)
		}
	}
	noun := "stand-ins"
	if len(removed) == 1 {
		noun = "stand-in"
	}
	printable.Say(os.Stderr, "claudebox: removed %d %s under %s left by a session that was killed", len(removed), noun, under)
}
