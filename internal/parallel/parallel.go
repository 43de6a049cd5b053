// Package parallel runs the steps of a walk side by side, one goroutine
// per processor: walks that wait on the kernel, a status per directory,
// finish sooner on a machine's every core.
package parallel

import (
	"runtime"
	"sync"
)

// Each runs do(i) for i in [0, n), side by side, and returns when all
// have returned.
func Each(n int, do func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// Helpers are goroutines, one per processor, that take from a walk the
// steps it offers while they are idle: a walk of a tree whose entries
// lie mostly below one directory (node_modules, src) keeps every core
// busy, where Each over the top's directories leaves all but one idle.
// Only an idle helper takes a step, so what a step holds open (a
// directory's descriptor) is never queued. The caller, once it offered
// its first step, mostly waits.
type Helpers struct {
	steps   chan func()
	running sync.WaitGroup
	helpers sync.WaitGroup
}

// NewHelpers starts the helpers; Wait ends them.
func NewHelpers() *Helpers {
	h := &Helpers{steps: make(chan func())}
	for range runtime.GOMAXPROCS(0) {
		h.helpers.Add(1)
		go func() {
			defer h.helpers.Done()
			for step := range h.steps {
				step()
				h.running.Done()
			}
		}()
	}
	return h
}

// Offer gives step to an idle helper and says so; where none is idle it
// returns false and the caller takes the step itself. A step may offer
// steps in turn.
func (h *Helpers) Offer(step func()) bool {
	h.running.Add(1)
	select {
	case h.steps <- step:
		return true
	default:
		h.running.Done()
		return false
	}
}

// Wait returns once every step offered and taken has returned, and ends
// the helpers: no step may be offered after.
func (h *Helpers) Wait() {
	h.running.Wait()
	close(h.steps)
	h.helpers.Wait()
}
