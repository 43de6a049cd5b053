package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/audit"
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
	byInstance := instance.SweepKilled(state)
	var removed []string
	for _, dir := range slices.Sorted(maps.Keys(byInstance)) {
		removed = append(removed, byInstance[dir]...)
	}
	if len(removed) == 0 {
		return
	}
	defer func() {
		for _, dir := range slices.Sorted(maps.Keys(byInstance)) {
			if since, ok := instance.StartedAt(dir); ok {
				sayUnwritten(byInstance[dir], since)
			}
		}
	}()
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

// sayUnwritten names what a checkout on the host could not write under
// the stand-ins removed, a killed session's that began at since, in each
// work tree they stood in: the nearest directory above each that is a
// checkout, a linked worktree's included, as instance.Repository finds
// it. A redirect that leads where git's layout does not put it (the
// sandbox could write the .git file) names nothing.
func sayUnwritten(removed []string, since time.Time) {
	checkouts := map[string]instance.Project{}
	byRoot := map[string][]string{}
	for _, p := range removed {
		for root := filepath.Dir(p); root != "/" && root != "."; root = filepath.Dir(root) {
			proj, ok, err := instance.Repository(root)
			if err != nil {
				break
			}
			if ok {
				checkouts[root] = proj
				byRoot[root] = append(byRoot[root], p)
				break
			}
		}
	}
	for _, root := range slices.Sorted(maps.Keys(byRoot)) {
		session.SayUnwritten(os.Stderr, audit.Unwritten(root, checkouts[root].GitDir, byRoot[root], since))
	}
}
