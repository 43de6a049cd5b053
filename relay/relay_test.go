package relay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
// way a tool inside the filtered network does: to the relay's listener,
// which the proxy serves, CONNECT, on to the server. "hop" is the ceiling
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
	p.Serve(rl)

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

// handOff sends fds on a new handoff, as the relay does, and returns
// the supervisor's end.
func handOff(t *testing.T, fds ...int) *net.UnixConn {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[1])
	f := os.NewFile(uintptr(pair[0]), "handoff")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := unix.Sendmsg(pair[1], []byte{0}, unix.UnixRights(fds...), nil, 0); err != nil {
		t.Fatal(err)
	}
	return c.(*net.UnixConn)
}

// tcpSocket is a TCP socket on 127.0.0.1, bound to a port the kernel
// picks and listening if listening, and its address.
func tcpSocket(t *testing.T, listening bool) (int, string) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if listening {
		if err := unix.Listen(fd, 8); err != nil {
			t.Fatal(err)
		}
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fd, "127.0.0.1:" + strconv.Itoa(sa.(*unix.SockaddrInet4).Port)
}

// TestReceiveTakesOnlyTheListeners: the supervisor takes from the
// handoff only listening TCP sockets bound where the relay listens, one
// for each, in order; anything else (a pipe, a Unix socket, a TCP socket
// not listening or bound elsewhere, one too many or too few) is refused.
// What it takes, it accepts on.
func TestReceiveTakesOnlyTheListeners(t *testing.T) {
	ln1, addr1 := tcpSocket(t, true)
	ln2, addr2 := tcpSocket(t, true)
	bound, boundAddr := tcpSocket(t, false)
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	unixLn, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()
	uf, _ := unixLn.(*net.UnixListener).File()
	defer uf.Close()
	refused := []struct {
		name  string
		fds   []int
		addrs []string
	}{
		{"a pipe", []int{pipe[0]}, []string{addr1}},
		{"a unix socket", []int{int(uf.Fd())}, []string{addr1}},
		{"a socket not listening", []int{bound}, []string{boundAddr}},
		{"bound elsewhere", []int{ln2}, []string{addr1}},
		{"out of order", []int{ln2, ln1}, []string{addr1, addr2}},
		{"one too many", []int{ln1, ln2}, []string{addr1}},
		{"one too few", []int{ln1}, []string{addr1, addr2}},
		{"none", nil, []string{addr1}},
	}
	for _, c := range refused {
		lns, _, err := receive(handOff(t, c.fds...), c.addrs)
		if err == nil || lns != nil {
			t.Errorf("%s: taken (%v)", c.name, err)
		}
	}
	lns, ok, err := receive(handOff(t, ln1, ln2), []string{addr1, addr2})
	if err != nil || !ok || len(lns) != 2 {
		t.Fatalf("the relay's listeners: %v %v %v", lns, ok, err)
	}
	for i, addr := range []string{addr1, addr2} {
		go func() {
			if c, err := lns[i].Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Errorf("%s: read %d %v, want the end the supervisor closed", addr, n, err)
		}
		c.Close()
		lns[i].Close()
	}
}

// TestReceiveEndedSandbox: a sandbox that ended before its relay sent
// anything is no error.
func TestReceiveEndedSandbox(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(pair[1])
	f := os.NewFile(uintptr(pair[0]), "handoff")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if lns, ok, err := receive(c.(*net.UnixConn), []string{"127.0.0.1:1"}); lns != nil || ok || err != nil {
		t.Fatalf("%v %v %v", lns, ok, err)
	}
}
