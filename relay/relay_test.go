package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/proxy"
)

// download is a server on 127.0.0.1 that sends size bytes to each
// connection, at most rate bytes a second (0: as fast as it can), as a
// link of that speed would.
func download(b *testing.B, size, rate int64) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	chunk := make([]byte, 1<<20)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				start := time.Now()
				for n := int64(0); n < size; n += int64(len(chunk)) {
					if rate > 0 {
						time.Sleep(time.Until(start.Add(time.Duration(n * int64(time.Second) / rate))))
					}
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// bareHop is the least any program in the path can cost: a listener on
// 127.0.0.1 that copies each connection to and from the server with
// nothing else (io.Copy between TCP connections splices in the kernel).
func bareHop(b *testing.B, server string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", server)
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				io.Copy(c, u)
			}()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkDownload reads 100 MB from a loopback server, directly and the
// way a tool inside the filtered network does: to the relay on TCP, on to
// the proxy's Unix socket, CONNECT, on to the server. "hop" is the ceiling
// for any proxy: one bare forwarder that splices, and no checks. The
// server sends as fast as loopback allows, then at a gigabit link's speed.
func BenchmarkDownload(b *testing.B) {
	const size = 100 << 20
	servers := []struct {
		name string
		rate int64
	}{{"loopback", 0}, {"1Gbit", 125_000_000}}
	var allow []proxy.Rule
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = download(b, size, s.rate)
		rule, err := proxy.ParseRule(addrs[i])
		if err != nil {
			b.Fatal(err)
		}
		allow = append(allow, rule)
	}
	socket := filepath.Join(b.TempDir(), "proxy.sock")
	pl, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	p, err := proxy.Start(pl, "http://127.0.0.1:3128", nil, proxy.Upstream, &proxy.Policy{Allow: allow}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rl.Close() })
	go relayTo(rl, socket)

	read := func(b *testing.B, c net.Conn, r io.Reader) {
		defer c.Close()
		if n, err := io.Copy(io.Discard, r); err != nil || n < size {
			b.Fatalf("read %d: %v", n, err)
		}
	}
	for i, s := range servers {
		server, hop := addrs[i], bareHop(b, addrs[i])
		for _, plain := range []struct{ name, addr string }{{"direct", server}, {"hop", hop}} {
			b.Run(s.name+"/"+plain.name, func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					c, err := net.Dial("tcp", plain.addr)
					if err != nil {
						b.Fatal(err)
					}
					read(b, c, c)
				}
			})
		}
		b.Run(s.name+"/connect", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				c, err := net.Dial("tcp", rl.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", server, server)
				br := bufio.NewReaderSize(c, 1<<16)
				line, err := br.ReadString('\n')
				if err != nil || line != "HTTP/1.1 200 Connection established\r\n" {
					b.Fatalf("%q %v", line, err)
				}
				if blank, _ := br.ReadString('\n'); blank != "\r\n" {
					b.Fatalf("%q", blank)
				}
				read(b, c, br)
			}
		})
	}
}

// TestRelayWithoutProxy: with the proxy gone, a connection to the relay is
// closed at once, so a client fails rather than hangs.
func TestRelayWithoutProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go relayTo(ln, filepath.Join(t.TempDir(), "gone.sock"))
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT example.com:443 HTTP/1.1\r\n\r\n")
	// Closed with the request unread, the connection may end in a reset
	// rather than an end of stream: either way the client fails at once.
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read %d, %v; want EOF or a reset", n, err)
	}
}
