package proxy

import (
	"io"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"
)

// TestCloseEndsHeldTunnels: the sandbox fills every one of the proxy's
// slots with a tunnel to a server that never closes, and goes away. Close
// still returns (it waited for the accept loop, which waited for a slot),
// and ends the tunnels, their far ends too.
func TestCloseEndsHeldTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	held := make(chan net.Conn, maxConns)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	// Not startEgress: its cleanup's Close would hang a failing test.
	pln, u, err := ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	px, err := Start(pln, u, nil, Upstream, &Policy{Allow: []Rule{{addr: netip.MustParseAddr("127.0.0.1"), port: addr.Port}}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	(&stubNet{}).install(px.egress)
	before := runtime.NumGoroutine()
	for range maxConns {
		status, body, c := connect(t, px, addr.String())
		if status != 200 {
			t.Fatalf("CONNECT: %d %s", status, body)
		}
		c.Close()
	}
	closed := make(chan struct{})
	go func() { px.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Close waits for tunnels the sandbox has left")
	}
	// Each tunnel has ended: the far end, which sends nothing, is closed
	// too, and no goroutine is left copying from it.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+maxConns/8 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after Close, %d before the tunnels", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
