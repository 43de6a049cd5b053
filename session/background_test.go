package session

import (
	"errors"
	"testing"
)

// fakeProcess counts its Abandon calls.
type fakeProcess struct{ abandoned int }

func (f *fakeProcess) Abandon() { f.abandoned++ }

// TestBackgroundTakenOnce: the guard watcher launched beside the launch's
// other steps is abandoned when the launch returns before taking it, is
// the taker's once taken (the deferred abandon leaves it), and, when its
// start failed, is abandoned by no one.
func TestBackgroundTakenOnce(t *testing.T) {
	untaken := &fakeProcess{}
	func() {
		b := startBackground(func() (*fakeProcess, error) { return untaken, nil })
		defer b.abandonUntaken()
		// The launch fails before it needs the watcher.
	}()
	if untaken.abandoned != 1 {
		t.Errorf("never taken: abandoned %d times, want 1", untaken.abandoned)
	}

	taken := &fakeProcess{}
	func() {
		b := startBackground(func() (*fakeProcess, error) { return taken, nil })
		defer b.abandonUntaken()
		if p, err := b.take(); p != taken || err != nil {
			t.Errorf("take: %p, %v; want %p", p, err, taken)
		}
	}()
	if taken.abandoned != 0 {
		t.Errorf("taken: abandoned %d times by the deferred call, want 0", taken.abandoned)
	}

	failed := errors.New("cannot start")
	func() {
		b := startBackground(func() (*fakeProcess, error) { return nil, failed })
		defer b.abandonUntaken()
		if _, err := b.take(); err != failed {
			t.Errorf("take: %v, want %v", err, failed)
		}
	}()
	func() {
		b := startBackground(func() (*fakeProcess, error) { return nil, failed })
		defer b.abandonUntaken() // a nil process is not abandoned
	}()
}
