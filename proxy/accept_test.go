package proxy

import (
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// failingListener fails its first fails accepts as a process out of
// descriptors does, and then waits until it is closed.
type failingListener struct {
	fails   int64
	accepts atomic.Int64
	closed  chan struct{}
}

func newFailingListener(fails int64) *failingListener {
	return &failingListener{fails: fails, closed: make(chan struct{})}
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.accepts.Add(1) <= l.fails {
		return nil, syscall.EMFILE
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *failingListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *failingListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// TestForwardAcceptBacksOff: a forwarded port whose accepts fail (the
// supervisor out of descriptors, which the sandbox's connections can
// bring about) waits between tries instead of spinning a core.
func TestForwardAcceptBacksOff(t *testing.T) {
	failing := newFailingListener(1 << 40)
	defer failing.Close()
	px := startEgress(t, Policy{}, &stubNet{}, io.Discard)
	start := time.Now()
	px.ServeForward(failing, "127.0.0.1:1")
	time.Sleep(20 * acceptRetry)
	n, took := failing.accepts.Load(), time.Since(start)
	// A wait a try: at most one try for each acceptRetry that passed (a
	// loaded machine's sleep may last longer than asked), and a few more.
	if most := int64(took/acceptRetry) + 5; n > most {
		t.Errorf("%d accepts in %v: the loop does not wait after a failure", n, took)
	}
}

// TestPublishAcceptSurvivesFailure: a published port goes on accepting
// the host's clients after accepts failed for a while.
func TestPublishAcceptSurvivesFailure(t *testing.T) {
	failing := newFailingListener(3)
	px := startEgress(t, Policy{}, &stubNet{}, io.Discard)
	px.Publish(failing, 8080)
	defer failing.Close()
	for deadline := time.Now().Add(10 * time.Second); failing.accepts.Load() <= 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the port stopped accepting after %d failed accepts", failing.accepts.Load())
		}
	}
}
