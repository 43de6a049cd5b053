package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/internal/pipe"
)

// downloadSize is what each download of BenchmarkConnectThroughput reads.
const downloadSize = 100 << 20

// bulkServer sends downloadSize bytes to each connection, on 127.0.0.1.
func bulkServer(b *testing.B) string {
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
				for range downloadSize / len(chunk) {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkConnectThroughput downloads 100 MB from a loopback server:
// straight, through a CONNECT tunnel of the proxy listening on a Unix
// socket, and through the relay's way to it (a TCP port joined to the
// socket as the relay inside joins them), the path curl inside takes.
func BenchmarkConnectThroughput(b *testing.B) {
	server := bulkServer(b)
	socket := filepath.Join(b.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		b.Fatal(err)
	}
	policy := Policy{}
	r, _ := ParseRule(server)
	policy.Allow = append(policy.Allow, r)
	px, err := Start(ln, "http://127.0.0.1:3128", nil, "https://api.anthropic.com", &policy, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer px.Close()
	(&stubNet{}).install(px.egress)
	// The client reads in blocks of 256 KiB, as curl's largest buffer
	// does (io.Discard alone reads 8 KiB at a time, and would measure
	// its own reads).
	buf := make([]byte, 256<<10)
	read := func(c net.Conn, r io.Reader) {
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf)
		c.Close()
		if err != nil || n != downloadSize {
			b.Fatalf("read %d bytes: %v", n, err)
		}
	}
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(downloadSize)
		for b.Loop() {
			c, err := net.Dial("tcp", server)
			if err != nil {
				b.Fatal(err)
			}
			read(c, c)
		}
	})
	relay, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer relay.Close()
	go func() {
		for {
			c, err := relay.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				p, err := net.Dial("unix", socket)
				if err != nil {
					return
				}
				defer p.Close()
				pipe.Join(c, c, p)
			}()
		}
	}()
	for _, way := range []struct{ name, network, addr string }{{"connect", "unix", socket}, {"relay-connect", "tcp", relay.Addr().String()}} {
		b.Run(way.name, func(b *testing.B) {
			connectDownloads(b, way.network, way.addr, server, read)
		})
	}
}

// connectDownloads downloads from server through a CONNECT tunnel of the
// proxy reached at addr.
func connectDownloads(b *testing.B, network, addr, server string, read func(net.Conn, io.Reader)) {
	b.SetBytes(downloadSize)
	for b.Loop() {
		c, err := net.Dial(network, addr)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", server, server)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("CONNECT: %v %v", resp, err)
		}
		read(c, br)
	}
}
