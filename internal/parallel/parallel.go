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
