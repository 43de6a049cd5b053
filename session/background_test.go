package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestPrepareRefusedEndsWatcher: a launch's Prepare starts the guard
// watcher first, beside the probe; one that refuses (here, the home as
// the project) leaves no process of it behind.
func TestPrepareRefusedEndsWatcher(t *testing.T) {
	home := t.TempDir()
	t.Chdir(home)
	if _, err := Prepare(Options{Home: Home{Dir: home, State: filepath.Join(home, ".claudebox")}, Launch: true}); err == nil {
		t.Fatal("Prepare ran in the home")
	}
	// A watcher left running, or exited and not reaped, is a child still.
	time.Sleep(300 * time.Millisecond)
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if b, err := os.ReadFile(task); err == nil && strings.TrimSpace(string(b)) != "" {
			t.Errorf("a refused Prepare left a process: %s lists %s", task, b)
		}
	}
}
