package proxy

import (
	"io"
	"net"
	"net/netip"
	"runtime"
	"strings"
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

// TestServeSharesTheBound: the listener the relay hands out and a
// forwarded port's are served under the one bound of maxConns with
// Start's, so that the sandbox, which reaches all three, cannot make the
// supervisor hold more connections than through one. With the bound
// taken by idle connections to the other two, at most the one a waiting
// accept holds a slot for goes through a forwarded port; once they end,
// every one does.
func TestServeSharesTheBound(t *testing.T) {
	server, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	go func() {
		for {
			c, err := server.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello"))
		}
	}()
	addr := server.Addr().(*net.TCPAddr)
	px := startEgress(t, Policy{Allow: []Rule{{addr: netip.MustParseAddr("127.0.0.1"), port: addr.Port}}}, &stubNet{}, io.Discard)
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	relayed, forwarded := listen(), listen()
	px.Serve(relayed)
	px.ServeForward(forwarded, server.Addr().String())
	var idle []net.Conn
	closeIdle := func() {
		for _, c := range idle {
			c.Close()
		}
		idle = nil
	}
	defer closeIdle()
	addrs := []string{strings.TrimPrefix(px.URL, "http://"), relayed.Addr().String()}
	for i := range maxConns {
		c, err := net.Dial("tcp", addrs[i%2])
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	for deadline := time.Now().Add(20 * time.Second); len(px.limit.slots) < maxConns; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d slots taken", len(px.limit.slots), maxConns)
		}
	}
	const n = 10
	hello := make(chan bool, n)
	for range n {
		c, err := net.Dial("tcp", forwarded.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			b := make([]byte, 5)
			_, err := io.ReadFull(c, b)
			hello <- err == nil && string(b) == "hello"
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if len(hello) > 1 {
		t.Fatalf("%d connections past the bound served", len(hello))
	}
	closeIdle()
	for i := range n {
		select {
		case ok := <-hello:
			if !ok {
				t.Fatal("a forwarded connection did not reach the server")
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d of %d forwarded connections served once the bound was free", i, n)
		}
	}
}
