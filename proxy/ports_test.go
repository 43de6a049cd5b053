package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// park asks the proxy to park a connection for port, as the relay does;
// it returns the connection and its reader, the answer not yet read.
func parkFor(t *testing.T, px *Proxy, port int) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %s%d HTTP/1.1\r\nHost: claudebox\r\n\r\n", PublishPath, port)
	return c, bufio.NewReader(c)
}

// TestPublishBounds: what the sandbox can make the supervisor hold for a
// published port is bounded. Parking for a port not published is refused;
// beyond maxParked connections waiting, the next is refused at once; a
// host client takes one parked connection, answered 200 and joined both
// ways.
func TestPublishBounds(t *testing.T) {
	px := startEgress(t, Policy{}, &stubNet{}, io.Discard)
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px.Publish(host, 3000)

	_, r := parkFor(t, px, 3001)
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("parking for a port not published: %v %v", resp, err)
	}
	var parked []*bufio.Reader
	var conns []net.Conn
	for range maxParked {
		c, r := parkFor(t, px, 3000)
		conns = append(conns, c)
		parked = append(parked, r)
	}
	// The parked ones are held without an answer; once all are queued,
	// the next is refused.
	for len(px.published[3000].parked) < maxParked {
		runtime.Gosched()
	}
	_, r = parkFor(t, px, 3000)
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a connection beyond the bound: %v %v", resp, err)
	}
	client, err := net.Dial("tcp", host.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	fmt.Fprintf(client, "from the host\n")
	// One parked connection is answered and carries the client's bytes.
	got := make(chan string, len(parked))
	for i, r := range parked {
		go func() {
			resp, err := http.ReadResponse(r, nil)
			if err != nil || resp.StatusCode != http.StatusOK {
				return
			}
			line, _ := r.ReadString('\n')
			fmt.Fprintf(conns[i], "from inside\n")
			got <- line
		}()
	}
	if line := <-got; line != "from the host\n" {
		t.Fatalf("the parked connection read %q", line)
	}
	if line, err := bufio.NewReader(client).ReadString('\n'); err != nil || line != "from inside\n" {
		t.Fatalf("the host's client read %q, %v", line, err)
	}
}
