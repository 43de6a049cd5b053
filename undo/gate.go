package undo

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/claudebox/claudebox/instance"
)

// The start's list of ignored files says which were there before the
// session: one the session made is no finding (pip install's scripts),
// one the host runs that it changed is. Taken while the sandbox ran, the
// list lacked what the session moved away at once and put back once it
// was taken, which the exit then took for made. So it is taken before the
// snapshot hashes the checkout, and the sandbox starts once it is; past a
// bound it starts anyway, and the list taken later is kept only where
// nothing the sandbox could have done meanwhile shows (listSettled, from
// the time the sandbox was let go); else it is kept as late, which the
// exit takes for none.

// ListGate holds a sandbox's start until its snapshot's list of ignored
// files is taken.
type ListGate struct {
	listed, late         chan struct{}
	listedOnce, lateOnce sync.Once
	// clock reads the filesystem's clock; lateFrom is its time when the
	// sandbox was let go (zero if it could not be read).
	clock    func() (time.Time, error)
	lateFrom time.Time
}

// NewListGate is a gate for one snapshot, which Take finds in its context
// (WithListGate); clock reads the filesystem's clock, which stamps what
// the sandbox changes (Mark does).
func NewListGate(clock func() (time.Time, error)) *ListGate {
	return &ListGate{listed: make(chan struct{}), late: make(chan struct{}), clock: clock}
}

// Wait returns once the list is taken (or cannot be), or after bound,
// when a list taken later is kept only if nothing changed from then on.
func (g *ListGate) Wait(bound time.Duration) {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-g.listed:
	case <-t.C:
		g.lateOnce.Do(func() {
			if g.clock != nil {
				g.lateFrom, _ = g.clock()
			}
			close(g.late)
		})
	}
}

// open lets the sandbox start.
func (g *ListGate) open() {
	if g != nil {
		g.listedOnce.Do(func() { close(g.listed) })
	}
}

// lateSince says whether the sandbox may have started, and from when by
// the filesystem's clock (zero if not known): checked once git has
// listed, before open, it is false only for a list taken before.
func (g *ListGate) lateSince() (time.Time, bool) {
	if g == nil {
		return time.Time{}, false
	}
	select {
	case <-g.late:
		return g.lateFrom, true
	default:
		return time.Time{}, false
	}
}

type listGateKey struct{}

// WithListGate is ctx carrying g to Take.
func WithListGate(ctx context.Context, g *ListGate) context.Context {
	return context.WithValue(ctx, listGateKey{}, g)
}

func listGateOf(ctx context.Context) *ListGate {
	g, _ := ctx.Value(listGateKey{}).(*ListGate)
	return g
}

// ListBound bounds how long a sandbox's start waits for its snapshot's
// list of ignored files: a small checkout's takes a few milliseconds; a
// large one's (60,000 files: a tenth of a second, 1,000,000: seconds)
// goes on while the sandbox runs, and is kept if nothing it depends on
// changed from the sandbox's start on (the snapshot reads each
// directory's status again to tell). Where the checkout's last list took
// longer, the start does not wait at all (ListOutlasts): this one would
// be late again, and the wait would only put off the sandbox's start.
const ListBound = 20 * time.Millisecond

// listedName is kept, in the checkout's project's store, while its last
// list of ignored files took longer than ListBound: it holds how long the
// first of them took, in nanoseconds. Written only where that changes: a
// launch in a burst of them replaces no file for it.
func listedName(checkout string) string { return instance.Hash(checkout) + ".listed" }

// listed keeps whether a list of the checkout's ignored files outlasted
// the start's wait: it took as long as took.
func (st store) listed(checkout string, took time.Duration) {
	path := filepath.Join(st.dir, listedName(checkout))
	switch {
	case took <= ListBound:
		os.Remove(path)
	case listedTook(path) == 0:
		writeRecord(path, strconv.AppendInt(nil, int64(took), 10))
	}
}

// ListOutlasts says whether the last list of the checkout's ignored files
// took longer than ListBound (false where none was kept).
func ListOutlasts(stateDir, root, checkout string) bool {
	return listedTook(filepath.Join(storeOf(stateDir, root).dir, listedName(checkout))) > ListBound
}

// listedTook is how long the list that path records took; 0 for none, or
// one unreadable.
func listedTook(path string) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 20 {
		return 0
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n)
}
