package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestEgressAnswerWait: a plain-HTTP request by absolute URL to a server
// that reads it and never answers ends with a 504 once answerWait has
// passed, and the supervisor's connection to the server is closed; an
// answer whose body streams for longer than answerWait passes whole.
func TestEgressAnswerWait(t *testing.T) {
	defer func(d time.Duration) { answerWait = d }(answerWait)
	answerWait = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The silent server reads the request, then waits for the proxy to
	// close its connection, and says when it did.
	closed := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				line, _ := br.ReadString('\n')
				if strings.Contains(line, "/stream") {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
					for i := range 5 {
						time.Sleep(answerWait / 2)
						io.WriteString(c, strings.Repeat("x", i+1)+"\n")
					}
					return
				}
				io.Copy(io.Discard, br)
				closed <- struct{}{}
			}()
		}
	}()
	px := startEgress(t, mustPolicy(t, []string{ln.Addr().String()}, nil), &stubNet{}, io.Discard)
	pu, _ := url.Parse(px.URL)
	// Without the bound, the client's own gives up.
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 30 * time.Second}
	resp, err := client.Get("http://" + ln.Addr().String() + "/silent")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), "did not begin its answer within") {
		t.Errorf("a server that never answers: %d %q", resp.StatusCode, body)
	}
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Error("the proxy's connection to the silent server is still open")
	}
	resp, err = client.Get("http://" + ln.Addr().String() + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "x\nxx\nxxx\nxxxx\nxxxxx\n"; resp.StatusCode != http.StatusOK || string(body) != want {
		t.Errorf("an answer streaming past the wait: %d %q, want %q", resp.StatusCode, body, want)
	}
}

// TestHostProxyAnswerWait: through the host's own proxy, a CONNECT it
// never answers ends once answerWait has passed, for a tunnel and for a
// plain-HTTP request alike, and the connection to it is closed.
func TestHostProxyAnswerWait(t *testing.T) {
	defer func(d time.Duration) { answerWait = d }(answerWait)
	answerWait = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(io.Discard, c)
				closed <- struct{}{}
			}()
		}
	}()
	px := startEgress(t, mustPolicy(t, []string{"example.test"}, nil), &stubNet{}, io.Discard)
	via, _ := url.Parse("http://" + ln.Addr().String())
	px.egress.hostProxy = func(*http.Request) (*url.URL, error) { return via, nil }
	waited := func(what string) {
		select {
		case <-closed:
		case <-time.After(time.Minute):
			t.Errorf("%s: the connection to the host's proxy is still open", what)
		}
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Without the bound, the test's own gives up.
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, "CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect}); err != nil {
		t.Errorf("CONNECT through a host's proxy that never answers: %v", err)
	} else if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "the host's proxy") {
		t.Errorf("CONNECT through a host's proxy that never answers: %d %q", resp.StatusCode, body)
	}
	waited("CONNECT")
	pu, _ := url.Parse(px.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 30 * time.Second}
	resp, err := client.Get("http://example.test/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "the host's proxy") {
		t.Errorf("plain HTTP through a host's proxy that never answers: %d %q", resp.StatusCode, body)
	}
	waited("plain HTTP")
}
