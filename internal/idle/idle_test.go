package idle

import (
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReleaseKeepsWrites: a read-only mapping of a file holding a page the
// process wrote before making it read-only (as the loader does with the
// pages it relocates) keeps what was written; a clean one reads the
// file's contents again.
func TestReleaseKeepsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 2*os.Getpagesize()), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	written, err := unix.Mmap(int(f.Fd()), 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	clean, err := unix.Mmap(int(f.Fd()), int64(os.Getpagesize()), os.Getpagesize(), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	written[0] = 'x'
	if err := unix.Mprotect(written, unix.PROT_READ); err != nil {
		t.Fatal(err)
	}
	_ = clean[0]
	release(cleanMappings())
	if written[0] != 'x' || clean[0] != 0 {
		t.Errorf("after release the mappings hold %q and %q, want 'x' and 0", written[0], clean[0])
	}
}

// TestWaitCollectsOnlyAtItsLimitUntilEnd: once released, the collector is
// off, with a limit a little above what the process holds; End gives the
// settings back as they were.
func TestWaitCollectsOnlyAtItsLimitUntilEnd(t *testing.T) {
	before := collector()
	ready := make(chan struct{})
	w := Wait(ready, nil)
	close(ready)
	for deadline := time.Now().Add(30 * time.Second); collector().percent != -1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the collector is still on 30 s after Wait")
		}
	}
	if c := collector(); c.limit == before.limit {
		t.Errorf("no memory limit while waiting: %+v", c)
	}
	w.End()
	if c := collector(); c != before {
		t.Errorf("after End the collector is %+v, want %+v as before", c, before)
	}
}

// TestEndBeforeRelease: a wait ended before its release changes nothing.
func TestEndBeforeRelease(t *testing.T) {
	before := collector()
	w := Wait(make(chan struct{}))
	w.End()
	if c := collector(); c != before {
		t.Errorf("after End the collector is %+v, want %+v as before", c, before)
	}
}

type settings struct {
	percent int64
	limit   uint64
}

// collector is the collector's settings: GOGC, -1 when off, and the
// memory limit.
func collector() settings {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return settings{int64(s[0].Value.Uint64()), s[1].Value.Uint64()}
}

// TestReleaseCollectsOnceForWhatIsDone: a release whose works are all done
// by then collects once (the supervisor's snapshots and CA pool, done
// before its release in a small project, were collected for one by one:
// four forced collections, each stopping the world and marking the heap
// again); one still running is waited for after a collection, so what the
// start held goes at once, and then once more.
func TestReleaseCollectsOnceForWhatIsDone(t *testing.T) {
	done := make(chan struct{})
	close(done)
	running := make(chan struct{})
	for _, c := range []struct {
		name  string
		ready []<-chan struct{}
		want  uint64
	}{
		{"all done", []<-chan struct{}{done, done, nil, done}, 1},
		{"one running", []<-chan struct{}{done, running, done}, 2},
	} {
		before := forcedCollections()
		w := Wait(c.ready...)
		if c.want == 2 {
			for deadline := time.Now().Add(30 * time.Second); forcedCollections() == before; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no collection 30 s after Wait, with one work still running")
				}
			}
			close(running)
		}
		for deadline := time.Now().Add(30 * time.Second); collector().percent != -1; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the release did not come 30 s after Wait", c.name)
			}
		}
		if got := forcedCollections() - before; got != c.want {
			t.Errorf("%s: the release forced %d collections, want %d", c.name, got, c.want)
		}
		w.End()
	}
}

// forcedCollections is how many collections the process was made to run.
func forcedCollections() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
