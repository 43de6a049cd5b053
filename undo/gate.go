package undo

import (
	"context"
	"sync"
	"time"
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
