package proxy

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// TestKernelSizedTunnels: of the tunnels open at once, the first
// kernelSizedTunnels dial their server keeping the kernel's own sizing
// (a download keeps its speed), the rest with bounded buffers; a tunnel
// that ends gives its place to the next.
func TestKernelSizedTunnels(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	px := startEgress(t, mustPolicy(t, []string{ln.Addr().String()}, nil), &stubNet{}, io.Discard)
	var mu sync.Mutex
	var sized []bool
	px.egress.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		sized = append(sized, kernelSizing(ctx))
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	count := func() (yes, no int) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range sized {
			if s {
				yes++
			} else {
				no++
			}
		}
		return yes, no
	}
	var tunnels []net.Conn
	for range kernelSizedTunnels + 4 {
		status, body, c := connect(t, px, ln.Addr().String())
		if status != 200 {
			t.Fatalf("CONNECT: %d %s", status, body)
		}
		tunnels = append(tunnels, c)
	}
	if yes, no := count(); yes != kernelSizedTunnels || no != 4 {
		t.Errorf("of %d tunnels open at once, %d kept the kernel's sizing and %d were bounded, want %d and 4", kernelSizedTunnels+4, yes, no, kernelSizedTunnels)
	}
	tunnels[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for px.egress.kernelSized.Load() >= kernelSizedTunnels && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	status, _, c := connect(t, px, ln.Addr().String())
	if status != 200 {
		t.Fatalf("CONNECT after one ended: %d", status)
	}
	defer c.Close()
	if yes, _ := count(); yes != kernelSizedTunnels+1 {
		t.Errorf("a tunnel that ended did not give its place: %d kept the kernel's sizing", yes)
	}
	for _, c := range tunnels[1:] {
		c.Close()
	}
}
