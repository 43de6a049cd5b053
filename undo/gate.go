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
// bound it starts anyway, and the list is kept as late, which the exit
// takes for none.

// ListGate holds a sandbox's start until its snapshot's list of ignored
// files is taken.
type ListGate struct {
	listed, late         chan struct{}
	listedOnce, lateOnce sync.Once
}

// NewListGate is a gate for one snapshot, which Take finds in its context
// (WithListGate).
func NewListGate() *ListGate {
	return &ListGate{listed: make(chan struct{}), late: make(chan struct{})}
}

// Wait returns once the list is taken (or cannot be), or after bound,
// when a list taken later is marked late.
func (g *ListGate) Wait(bound time.Duration) {
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-g.listed:
	case <-t.C:
		g.lateOnce.Do(func() { close(g.late) })
	}
}

// open lets the sandbox start.
func (g *ListGate) open() {
	if g != nil {
		g.listedOnce.Do(func() { close(g.listed) })
	}
}

// isLate says whether the sandbox may have started: checked once git has
// listed, before open, it is false only for a list taken before.
func (g *ListGate) isLate() bool {
	if g == nil {
		return false
	}
	select {
	case <-g.late:
		return true
	default:
		return false
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
