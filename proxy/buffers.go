package proxy

import (
	"context"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel sizes a connection's buffers to its traffic, up to
// net.ipv4.tcp_rmem's and tcp_wmem's most (4 to 32 MiB a socket), and
// the sandbox chooses the traffic: a tunnel it read fast and then left,
// uploading to a server that reads nothing, held 27 MiB of kernel memory
// on the supervisor's side, which over the proxy's maxConns is past the
// whole host's TCP memory (net.ipv4.tcp_mem), where every connection of
// the host stalls (TestReplayReview17TunnelBuffers). So they are bounded:
//   - a connection from the sandbox, over loopback (its round trip is
//     microseconds), to sandboxSocketBuffer each way, which costs a
//     download nothing (BenchmarkDownload);
//   - a connection to a server, whose round trip may be a tenth of a
//     second, to upstreamReceiveBuffer of what it received (a window of
//     about that: 1 MiB at 20 ms is 50 MB/s a connection; the kernel
//     gives no more than net.core.rmem_max, 208 KiB unless raised,
//     which makes it 10 to 20 MB/s) and unsentBound of what waits to be
//     sent, which leaves what is in flight to the kernel, so that an
//     upload keeps its speed.
//
// The kernel doubles what it is told, for its own bookkeeping: a tunnel
// holds at most about 2.5 MiB, 640 MiB over maxConns.
const (
	sandboxSocketBuffer   = 128 << 10
	upstreamReceiveBuffer = 1 << 20
	unsentBound           = 128 << 10
)

// But a window that small slows a download from a distant server (a
// wheel of gigabytes from 50 ms away at 6 MB/s where rmem_max is left at
// 208 KiB, which bounds what SO_RCVBUF may ask), so the first
// kernelSizedTunnels tunnels at once keep the kernel's own sizing of what
// their server's connection receives, each up to net.ipv4.tcp_rmem's
// most (6 MiB by default): a download that runs alone or beside a few
// keeps its speed, and the sandbox's most stays bounded (4 × 6 MiB more).
const kernelSizedTunnels = 4

// kernelSizingKey marks the context of a tunnel whose connection to the
// server keeps the kernel's own sizing.
type kernelSizingKey struct{}

// kernelSizing says a connection dialled under ctx keeps the kernel's own
// sizing.
func kernelSizing(ctx context.Context) bool {
	sized, _ := ctx.Value(kernelSizingKey{}).(bool)
	return sized
}

// boundSandboxBuffers bounds the buffers of c, a connection the sandbox
// opened to the proxy.
func boundSandboxBuffers(c net.Conn) {
	if b, ok := c.(interface {
		SetReadBuffer(int) error
		SetWriteBuffer(int) error
	}); ok {
		b.SetReadBuffer(sandboxSocketBuffer)
		b.SetWriteBuffer(sandboxSocketBuffer)
	}
}

// boundUpstreamBuffers is a dialer's Control: it bounds the buffers of a
// connection to a server before it connects, so that the window it
// offers is bounded from the start.
func boundUpstreamBuffers(_, _ string, c syscall.RawConn) error {
	return upstreamBuffers(c, true)
}

// boundUpstreamUnsent is boundUpstreamBuffers for a connection that keeps
// the kernel's sizing of what it receives: only what waits to be sent is
// bounded.
func boundUpstreamUnsent(_, _ string, c syscall.RawConn) error {
	return upstreamBuffers(c, false)
}

func upstreamBuffers(c syscall.RawConn, received bool) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		if received {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, upstreamReceiveBuffer)
		}
		if err == nil {
			err = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, unsentBound)
		}
	}); cerr != nil {
		return cerr
	}
	return err
}
