package network

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayNetworkHeldTunnels: the agent opens 300 CONNECT tunnels to an
// allowed host whose server keeps every connection open and never answers
// (a server of its own, or any that waits out a half close), then ends
// its session. The proxy serves 256 connections at once, over its
// listeners together: the tunnels take all but the slot its socket's
// accept waits with (the relay's listener is the other); each tunnel
// outlives the sandbox, since only the server's end would close it. The
// proof, on the host side: claudebox still exits once the sandbox has
// ended (before the fix, closing the proxy waited for its accept loop,
// itself waiting forever for one of the held slots).
func TestReplayNetworkHeldTunnels(t *testing.T) {
	h := harness.NewHost(t)
	ln, open := holdingServer(t)
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	cmd := h.Command(proj, nil, "claudebox", "--shell", "--allow-host", "127.0.0.1:"+port, "-c", `
		for i in $(seq 300); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			printf 'CONNECT 127.0.0.1:`+port+` HTTP/1.1\r\nHost: 127.0.0.1:`+port+`\r\n\r\n' >&$fd
		done
		for i in $(seq 600); do test -e done && break; sleep 0.1; done
	`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	defer func() {
		os.WriteFile(filepath.Join(proj, "done"), nil, 0o644)
		select {
		case <-ended:
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			<-ended
		}
	}()
	giveUp := time.After(2 * time.Minute)
	for open.Load() < 255 {
		select {
		case <-ended:
			t.Fatalf("the session ended with %d tunnels open:\n%s\n%s", open.Load(), stdout.String(), stderr.String())
		case <-giveUp:
			t.Fatalf("only %d tunnels open:\n%s", open.Load(), stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	os.WriteFile(filepath.Join(proj, "done"), nil, 0o644)
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-ended
		t.Fatalf("claudebox did not exit after its sandbox ended, with %d tunnels held\n%s", open.Load(), stderr.String())
	}
}

// holdingServer is a server on loopback that holds every connection it
// accepts, reading nothing and sending nothing, until its listener is
// closed; open counts them.
func holdingServer(t *testing.T) (net.Listener, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := new(atomic.Int32)
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			open.Add(1)
		}
	}()
	return ln, open
}
