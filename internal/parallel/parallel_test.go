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
