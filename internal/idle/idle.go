// Package idle gives back what a long-running process's start used and
// its waiting does not need.
package idle

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// After is how long a process that then only waits (the supervisor, the
// guard watcher, the relay) runs before it gives back what its start used:
// soon enough that their resident memory together is small from the
// session's first second on, under load too; a session that ends sooner
// does not pay for it.
const After = 300 * time.Millisecond

// margin is how much the Go runtime's memory may grow over what a waiting
// process holds before it collects: the collector's smallest goal, 4 MiB,
// as it is without a limit.
const margin = 4 << 20

// startLimit is how much memory the Go runtime may hold (its heap, stacks
// and own structures) before a process begun with Start first collects:
// a one-file launch's supervisor holds 12-16 MiB in all at its most
// without collecting.
const startLimit = 24 << 20

// starting is the collector's state from Start until the process's first
// collection: off, up to startLimit, and what it was before.
var starting struct {
	sync.Mutex
	on      bool
	percent int
	limit   int64
}

// Start keeps the collector from running while the process holds less
// than startLimit, and gives it back as it was (Go's default, or the
// environment's GOGC and GOMEMLIMIT) at the first collection. Memory new
// to a process costs a page fault at each 4 KiB touched (25-45 us on a
// virtual machine), and a collection touches its own: a one-file
// launch's supervisor collected once (its heap at 4 MiB) and took 324
// more page faults, 9 % more processor time for the launch. A process
// that grows past the limit (a large tree's launch or exit audit)
// collects there, and then as it would have.
func Start() {
	starting.Lock()
	defer starting.Unlock()
	if starting.on {
		return
	}
	starting.on = true
	starting.percent = debug.SetGCPercent(-1)
	starting.limit = debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(starting.limit, startLimit))
	// Gone at the first collection, which its cleanup then ends Start's
	// regime for.
	first := new(struct{ _ [2]*int })
	runtime.AddCleanup(first, func(struct{}) { stopStarting() }, struct{}{})
}

// stopStarting gives the collector back as Start found it, once.
func stopStarting() {
	starting.Lock()
	defer starting.Unlock()
	if !starting.on {
		return
	}
	starting.on = false
	debug.SetGCPercent(starting.percent)
	debug.SetMemoryLimit(starting.limit)
}

// Waiting is a process's wait, from Wait to End.
type Waiting struct {
	wake, woken chan struct{}
	percent     int
	limit       int64
}

// Wait gives back, After from now and once each of ready is closed (a
// nil one needs not be), what the process's start used (the heap it no
// longer uses, at After and as each closes, then the pages of the files
// it maps read-only), and from then on, until
// End, the collector runs only when the process's memory grows by margin,
// not every two minutes as Go's runs in a process that allocates nothing:
// each such collection read the binary's tables of every waiting
// goroutine's frames, mapping its pages back (the session's processes
// together held 14.3 MB, 15.9 MB two minutes later).
func Wait(ready ...<-chan struct{}) *Waiting {
	w := &Waiting{wake: make(chan struct{}), woken: make(chan struct{})}
	go w.wait(ready)
	return w
}

func (w *Waiting) wait(ready []<-chan struct{}) {
	defer close(w.woken)
	select {
	case <-time.After(After):
	case <-w.wake:
		return
	}
	for _, r := range ready {
		if r == nil || isClosed(r) {
			continue
		}
		// What the start and each work done held (a large tree's record)
		// is given back before a wait for the next, not once the last is
		// done; one collection for all those done by then, each forced
		// collection stopping the world and marking the heap again.
		debug.FreeOSMemory()
		// While it runs, the collector is as Go's; given back only now,
		// with the heap just collected, not to start a collection of its
		// own over what the start left.
		stopStarting()
		select {
		case <-r:
		case <-w.wake:
			return
		}
	}
	clean := cleanMappings()
	debug.FreeOSMemory()
	stopStarting()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.percent = debug.SetGCPercent(-1)
	w.limit = debug.SetMemoryLimit(int64(m.Sys-m.HeapReleased) + margin)
	release(clean)
	// Waiting here, not returning: a goroutine's end reads the binary's
	// tables (its start function's name), mapping two of their folios back.
	<-w.wake
	debug.SetGCPercent(w.percent)
	debug.SetMemoryLimit(w.limit)
}

// isClosed says whether r is closed.
func isClosed(r <-chan struct{}) bool {
	select {
	case <-r:
		return true
	default:
		return false
	}
}

// End gives the process the collector as it was, for the work after its
// wait (the supervisor's exit audit), or stops a release not yet begun.
func (w *Waiting) End() {
	close(w.wake)
	<-w.woken
}

// release takes out of the process's resident set the pages of the
// mappings (cleanMappings) that its start touched: they stay in the page
// cache, shared with every process mapping them, and come back on their
// next use. It allocates nothing and runs little after: what runs after a
// drop maps the binary's pages back, a whole folio of 2 MiB at a fault
// where the binary was written in one piece, and reading /proc/self/smaps
// between the drops (its garbage, the collection of it) kept four of the
// binary's folios mapped in each process.
func release(mappings [][2]uintptr) {
	for _, m := range mappings {
		unix.Syscall(unix.SYS_MADVISE, m[0], m[1]-m[0], unix.MADV_DONTNEED)
	}
}

// cleanMappings are the start and end of each mapping of a file this
// process never wrote to: read-only, an inode and a path (claudebox's
// binary, libc), no anonymous page (a copy the loader relocated, which a
// drop would lose).
func cleanMappings() [][2]uintptr {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return nil
	}
	var mappings [][2]uintptr
	var start, end uint64
	clean := false
	keep := func() {
		if clean {
			mappings = append(mappings, [2]uintptr{uintptr(start), uintptr(end)})
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			keep()
			lo, hi, _ := strings.Cut(f[0], "-")
			var err1, err2 error
			start, err1 = strconv.ParseUint(lo, 16, 64)
			end, err2 = strconv.ParseUint(hi, 16, 64)
			// A file's mapping (an inode, a path), never written.
			clean = err1 == nil && err2 == nil && f[1][1] != 'w' && f[4] != "0" && len(f) >= 6 && strings.HasPrefix(f[5], "/")
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && strings.TrimSpace(v) != "0 kB" {
			clean = false
		}
	}
	keep()
	return mappings
}
