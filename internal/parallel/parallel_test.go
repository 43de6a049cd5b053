package parallel

import (
	"sync/atomic"
	"testing"
)

// Each runs every step once, and returns only when all have run.
func TestEachRunsEveryStepOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		runs := make([]atomic.Int32, n)
		Each(n, func(i int) { runs[i].Add(1) })
		for i := range runs {
			if got := runs[i].Load(); got != 1 {
				t.Errorf("n=%d: step %d ran %d times", n, i, got)
			}
		}
	}
}

// TestHelpersRunEveryStepOnce: a tree of steps, each offering its
// children, runs each once, whether a helper or the offerer took it, and
// Wait returns after the last.
func TestHelpersRunEveryStepOnce(t *testing.T) {
	const width, depth = 4, 6
	var runs atomic.Int32
	h := NewHelpers()
	var step func(level int)
	step = func(level int) {
		runs.Add(1)
		if level == depth {
			return
		}
		for range width {
			if !h.Offer(func() { step(level + 1) }) {
				step(level + 1)
			}
		}
	}
	step(0)
	h.Wait()
	want := int32(0)
	for level, n := 0, int32(1); level <= depth; level, n = level+1, n*width {
		want += n
	}
	if got := runs.Load(); got != want {
		t.Errorf("%d steps ran, want %d", got, want)
	}
}
