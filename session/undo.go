package session

import (
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// takeUndo starts taking the project's snapshot for claudebox --undo,
// beside the session: what the session writes before the snapshot read it
// is left out of it (undo.Take). A snapshot that cannot be taken is said,
// and the session goes on. One not taken when the session's command ends
// is stopped then, and stays pending: all the session changed it would
// leave out as unknown.
func (s *Session) takeUndo() {
	if s.plan.Project.GitDir == "" {
		return
	}
	sayNoUndoRoom(s.stateDir)
	since, err := undo.Mark(s.stateDir, s.plan.Project.Root)
	if err != nil {
		printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		return
	}
	var standIns []string
	for _, m := range s.plan.Placeholders() {
		standIns = append(standIns, m.Dest)
	}
	// Read before this session holds the checkout.
	beside := instance.CheckoutInUse(instance.Dir(s.stateDir, s.plan.Project.Root), s.plan.Project.Checkout)
	ctx, cancel := context.WithCancel(context.Background())
	// A list taken late is kept only where the checkout's statuses
	// compare with Mark's clock; elsewhere the start waits as long as
	// a large list takes.
	shares := undo.SharesClock(s.stateDir, s.plan.Project.Root, s.plan.Project.Checkout)
	bound, clock := listWait(shares, undo.ListOutlasts(s.stateDir, s.plan.Project.Root, s.plan.Project.Checkout)), func() (time.Time, error) { return undo.Mark(s.stateDir, s.plan.Project.Root) }
	if !shares {
		clock = nil
	}
	gate := undo.NewListGate(clock)
	ctx = undo.WithListGate(ctx, gate)
	s.undo = &undoTaking{stop: cancel, done: make(chan struct{}), listed: gate, bound: bound}
	go func() {
		defer close(s.undo.done)
		taken, err := undo.Take(ctx, s.stateDir, s.plan.Project, time.Now(), since, standIns, beside)
		s.undo.id = taken.ID
		if err != nil && ctx.Err() == nil {
			printable.Say(os.Stderr, "claudebox: this session cannot be undone: %v", err)
		}
	}()
}

// ranNoSession says whether the launch, whose sandbox never began its
// command, ran no session: no other session of the project ran before
// it, nor in its checkout after it (whose snapshot would be newer). Its
// snapshot and record of changes would be taken for the last session's:
// --undo -y then undid nothing, the session that ran before left as it
// was.
func (s *Session) ranNoSession() bool {
	if !s.first || s.undo == nil {
		return false
	}
	s.undo.wait()
	last := undo.List(s.stateDir, s.plan.Project.Root, s.plan.Project.Checkout)
	return s.undo.id != "" && len(last) > 0 && last[0].ID == s.undo.id
}

// undoTaking is the undo snapshot being taken beside the session.
type undoTaking struct {
	// stop ends it, at once: its git is killed.
	stop context.CancelFunc
	// done is closed once it returned, its work files removed.
	done chan struct{}
	// listed opens once it has listed the checkout's ignored files.
	listed *undo.ListGate
	// bound is how long the sandbox's start waits for the list.
	bound time.Duration
	// id names the snapshot once done: taken, or pending.
	id string
}

// ignoredListBoundApart is the bound of the start's wait (undo.ListBound)
// where the checkout lies on another filesystem than the undo store
// (undo.SharesClock), and a list taken late counts as none: 100,000
// ignored files took 0.4 s.
const ignoredListBoundApart = 5 * time.Second

// listWait is how long a sandbox's start waits for its snapshot's list
// of ignored files, where the checkout shares the undo store's clock
// (shares) or not, and its last list outlasted the wait (outlasts): not
// at all then, as this one would be late again.
func listWait(shares, outlasts bool) time.Duration {
	switch {
	case !shares:
		return ignoredListBoundApart
	case outlasts:
		return 0
	}
	return undo.ListBound
}

// waitListed holds the sandbox's start until the snapshot has listed the
// checkout's ignored files, for at most its bound (see undo.ListGate).
func (u *undoTaking) waitListed() {
	if u != nil {
		u.listed.Wait(u.bound)
	}
}

// wait stops the snapshot and waits until it returned.
func (u *undoTaking) wait() {
	if u == nil {
		return
	}
	u.stop()
	<-u.done
}

// recordChanges starts recording, beside the exit audit, what the session
// that began at began did to the checkout (claudebox --changes); the
// channel gives it once done, before anything is moved aside. Only at
// its own end (own) does it wait for this session's snapshot: a launch
// cleaning up after a killed supervisor would otherwise wait, before its
// sandbox starts, for a whole git add -A.
//
// walked is given, once, the statuses its walk of the checkout read (nil
// if none), for the exit audit beside it.
func (s *Session) recordChanges(began time.Time, own bool, walked chan<- audit.Statuses, reopen *audit.Reopener) <-chan undo.Changes {
	done := make(chan undo.Changes, 1)
	var standIns []string
	for _, m := range s.plan.Placeholders() {
		standIns = append(standIns, m.Dest)
	}
	if s.plan.Project.GitDir == "" {
		// A folder of repositories: what their rules ignore, no
		// git status shows.
		walked <- nil
		go func() {
			done <- undo.NestedChanges(s.stateDir, s.plan.Project.Checkout, began, standIns, reopen)
		}()
		return done
	}
	go func() {
		// The snapshot, stopped when the command ended, is the record's
		// start: written or pending, not half of either.
		if own && s.undo != nil {
			<-s.undo.done
		}
		record := undo.RecordChanges
		if s.trial || s.noSession {
			record = undo.Changed
		}
		c, err := record(s.stateDir, s.plan.Project, began, standIns, walked, reopen)
		if err != nil && !errors.Is(err, undo.ErrNoStartSnapshot) {
			printable.Say(os.Stderr, "claudebox: claudebox --changes will not list everything the session did: %v", err)
		}
		done <- c
	}()
	return done
}

// recordOtherChanges records, as recordChanges does, what the sessions
// did to each other checkout they bound (a linked worktree's, whose
// session ended first), from its own first session's start where that
// was recorded: the channel gives each checkout's record. skip are the
// sessions' stand-ins; reopeners give back, by checkout, what the
// sessions closed of the user's.
func (s *Session) recordOtherChanges(dir string, began time.Time, skip []string, reopeners map[string]*audit.Reopener) <-chan map[string]undo.Changes {
	done := make(chan map[string]undo.Changes, 1)
	go func() {
		records := map[string]undo.Changes{}
		for _, c := range instance.AuditRoots(dir) {
			if c == s.plan.Project.Checkout || s.plan.Project.CommonDir != "" && c == filepath.Join(s.plan.Project.CommonDir, "modules") {
				continue // this one's, or no checkout (see addAuditRoots)
			}
			at := began
			if t, ok := instance.CheckoutStarted(dir, c); ok {
				at = t
			}
			p := s.plan.Project
			p.Checkout = c
			records[c], _ = undo.RecordChanges(s.stateDir, p, at, skip, nil, reopeners[c])
		}
		done <- records
	}()
	return done
}

// toolCaches are the Python tools' own caches, which each of their runs
// rewrites and none runs anything from: counted after every pytest, they
// only taught the user to skip the line. claudebox --changes still lists
// them, and the exit audit judges what lies in them as anywhere else.
var toolCaches = map[string]bool{".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true}

// sayIgnoredChanges says, for each top-level directory git ignores in
// which the session created, changed or removed files, how many: git
// status shows none of them. One whose installed dependencies the audit
// named already (deps) is not named twice, nor is a file the audit named
// (named: a build's output it moved aside, the packages of a virtualenv's
// site-packages, are no longer there to count).
func sayIgnoredChanges(w io.Writer, c undo.Changes, deps map[string]bool, named []string) {
	isNamed := make(map[string]bool, len(named))
	for _, n := range named {
		isNamed[n] = true
	}
	// It, or a directory above it, named: looked up by each ancestor, as
	// an install names thousands.
	underNamed := func(p string) bool {
		for at := filepath.Join(c.Checkout, p); strings.HasPrefix(at, c.Checkout+"/"); at = filepath.Dir(at) {
			if isNamed[at] {
				return true
			}
		}
		return false
	}
	left := maps.Clone(c.Top)
	for _, p := range c.Paths {
		if p.Ignored && p.Change != "removed" && underNamed(p.Path) {
			if top, _, ok := strings.Cut(p.Path, "/"); ok {
				left[top]--
			}
		}
	}
	said := false
	for _, top := range slices.Sorted(maps.Keys(left)) {
		if deps[top] || toolCaches[top] || left[top] <= 0 {
			continue
		}
		files := "files"
		if left[top] == 1 {
			files = "file"
		}
		printable.Say(w, "claudebox: %s/: %s %s changed, which git ignores", top, printable.Count(left[top]), files)
		said = true
	}
	if said {
		printable.Say(w, "hint: git status shows none of them; claudebox --changes lists them")
	}
}
