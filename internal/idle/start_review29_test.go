package idle

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// TestStartUntilFirstCollection: Start turns the collector off with a
// limit of startLimit; the first collection (here forced, as the limit
// would) gives back the settings as they were. Without the cleanup, a
// large launch collected only at its limit for its whole life.
func TestStartUntilFirstCollection(t *testing.T) {
	before := collector()
	Start()
	if c := collector(); c.percent != -1 || c.limit > startLimit {
		t.Fatalf("after Start the collector is %+v, want off with a limit of at most %d", c, startLimit)
	}
	Start() // a second call changes nothing, and must not take Start's settings for the ones before
	runtime.GC()
	for deadline := time.Now().Add(30 * time.Second); collector() != before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after a collection the collector is %+v, want %+v as before Start", collector(), before)
		}
		runtime.GC()
	}
}

// TestStartThenWaitAndEnd: a process begun with Start that waits gives
// the collector back as it was before Start at End, not Start's.
func TestStartThenWaitAndEnd(t *testing.T) {
	before := collector()
	Start()
	ready := make(chan struct{})
	w := Wait(ready)
	close(ready)
	for deadline := time.Now().Add(30 * time.Second); collector().limit == startLimit || collector().percent != -1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the release did not come 30 s after Wait")
		}
	}
	w.End()
	// The cleanup of Start's first collection may run late: it finds
	// Start's regime over and changes nothing.
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if c := collector(); c != before {
		t.Errorf("after End the collector is %+v, want %+v as before Start", c, before)
	}
}

// TestReleaseEndsStartWithItsCollection: a process begun with Start whose
// start left more garbage than the collector's default goal collects once
// at its release. Given the default back before its collection, the
// collector began one of its own over that garbage at the release's next
// allocation, and the forced one marked the heap again after it.
func TestReleaseEndsStartWithItsCollection(t *testing.T) {
	before := collector()
	Start()
	var garbage [][]byte
	for range 2048 {
		garbage = append(garbage, make([]byte, 4<<10))
	}
	runtime.KeepAlive(garbage) // garbage from here on
	cycles := collections()
	done := make(chan struct{})
	close(done)
	w := Wait(done)
	for deadline := time.Now().Add(30 * time.Second); collector().percent != -1 || collector().limit == startLimit; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the release did not come 30 s after Wait")
		}
	}
	if got := collections() - cycles; got != 1 {
		t.Errorf("the release ran %d collections, want 1", got)
	}
	w.End()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if c := collector(); c != before {
		t.Errorf("after End the collector is %+v, want %+v as before Start", c, before)
	}
}

// collections is how many collections the process ran.
func collections() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
