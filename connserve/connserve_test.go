package connserve

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestServeBounded: a connection beyond the bound is closed at once, one
// is served again once a slot frees, and Close ends those being served
// and waits for their handlers.
func TestServeBounded(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan net.Conn, 4)
	done := make(chan struct{}, 4)
	s := Serve(ln, 1, func(c net.Conn) {
		served <- c
		c.Read(make([]byte, 1)) // until the client or Close ends it
		done <- struct{}{}
	})
	dial := func() net.Conn {
		c, err := net.Dial("unix", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	closedByServer := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := c.Read(make([]byte, 1))
		return err != nil && !isTimeout(err)
	}

	first := dial()
	<-served
	if beyond := dial(); !closedByServer(beyond) {
		t.Error("a connection beyond the bound was not closed")
	}
	first.Close()
	<-done
	// The handler has returned its result; its slot frees as it returns.
	for deadline := time.Now().Add(10 * time.Second); len(s.slots) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	again := dial()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("no connection served once the slot freed")
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the connection being served")
	}
	select {
	case <-done:
	default:
		t.Error("Close returned before the handler being served ended")
	}
	if !closedByServer(again) {
		t.Error("Close left the connection being served open")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
