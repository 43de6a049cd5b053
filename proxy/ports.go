package proxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A published port (--publish) is a server inside the filtered sandbox made
// reachable from the host, with no host port the sandbox chooses and no way
// in but the proxy's socket: the supervisor listens on the host's
// 127.0.0.1:HOSTPORT, and the relay inside parks connections on the socket
// (PublishPath + the inside port), each waiting for one host client. When a
// client comes, the proxy answers one parked connection 200 and joins the
// two; the relay then dials the server inside. The sandbox can only offer
// connections for the ports the user published, at most maxParked waiting
// each, and never learns more of the host than the bytes its client sends.

// PublishPath is the relay's request to park a connection for a published
// port: GET PublishPath + PORT.
const PublishPath = "/.claudebox/publish/"

// Bounds on what a published port holds: parked connections from inside,
// host clients joined or waiting at once, and how long a host client
// waits for a parked connection (the relay parks the next at once).
const (
	maxParked       = 8
	maxPublishConns = 64
	parkWait        = 10 * time.Second
)

// publication is one published port.
type publication struct {
	ln     net.Listener
	parked chan parkedConn
	slots  chan struct{}
}

// parkedConn is a relay's connection waiting for a host client; read holds
// what the server read ahead of it.
type parkedConn struct {
	conn net.Conn
	read *bufio.Reader
}

// Publish serves the host's clients on ln (the supervisor's, on the host's
// loopback) with the server listening inside on inside's port.
func (p *Proxy) Publish(ln net.Listener, inside int) {
	pub := &publication{ln: ln, parked: make(chan parkedConn, maxParked), slots: make(chan struct{}, maxPublishConns)}
	p.portsMu.Lock()
	if p.published == nil {
		p.published = map[int]*publication{}
	}
	p.published[inside] = pub
	p.portsMu.Unlock()
	go pub.serve()
}

// closePorts stops every published port and its parked connections.
func (p *Proxy) closePorts() {
	p.portsMu.Lock()
	defer p.portsMu.Unlock()
	for _, pub := range p.published {
		pub.ln.Close()
	drain:
		for {
			select {
			case pc := <-pub.parked:
				pc.conn.Close()
			default:
				break drain
			}
		}
	}
}

// serve takes the host's clients: beyond maxPublishConns at once, a client
// is closed at once rather than held.
func (pub *publication) serve() {
	for {
		c, err := pub.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of descriptors, for one: the next may work.
			time.Sleep(acceptRetry)
			continue
		}
		select {
		case pub.slots <- struct{}{}:
			go func() {
				defer func() { <-pub.slots }()
				pub.join(c)
			}()
		default:
			c.Close()
		}
	}
}

// join gives host client c a parked connection, skipping those the relay
// closed, or closes it after parkWait.
func (pub *publication) join(c net.Conn) {
	defer c.Close()
	timer := time.NewTimer(parkWait)
	defer timer.Stop()
	for {
		select {
		case pc := <-pub.parked:
			if _, err := io.WriteString(pc.conn, "HTTP/1.1 200 OK\r\n\r\n"); err != nil {
				pc.conn.Close()
				continue
			}
			defer pc.conn.Close()
			tunnel(pc.conn, pc.read, c)
			return
		case <-timer.C:
			return
		}
	}
}

// park holds the relay's connection r until a host client takes it; a
// port not published, or one with maxParked waiting, is refused.
func (p *Proxy) park(w http.ResponseWriter, r *http.Request) {
	port, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, PublishPath))
	p.portsMu.Lock()
	pub := p.published[port]
	p.portsMu.Unlock()
	if err != nil || pub == nil || r.Method != http.MethodGet {
		p.refuse(w, r, http.StatusForbidden, "permission_error", "claudebox: that port is not published; the user publishes ports on the host: claudebox --publish PORT")
		return
	}
	if len(pub.parked) == cap(pub.parked) {
		http.Error(w, "claudebox: enough connections wait for this port", http.StatusTooManyRequests)
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	select {
	case pub.parked <- parkedConn{conn: conn, read: rw.Reader}:
	default:
		conn.Close()
	}
}
