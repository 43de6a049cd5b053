// Package pipe joins two connections: the relay inside the sandbox joins
// a client to the proxy's socket, and the proxy joins a CONNECT tunnel to
// its host.
package pipe

import (
	"io"
	"net"
	"sync"
)

// Join copies fromA (a's reading side, with anything already read ahead
// before it) to b and b to a, until both directions end, passing each end
// of stream on as a half close.
func Join(a net.Conn, fromA io.Reader, b net.Conn) {
	var wg sync.WaitGroup
	wg.Go(func() {
		io.Copy(b, fromA)
		closeWrite(b)
	})
	io.Copy(a, b)
	closeWrite(a)
	wg.Wait()
}

// closeWrite ends c's writing side, or c whole where it has no half close.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
