package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stallingProxy is a filtered network's proxy for a Claude API key, on a
// Unix socket as the sandbox has it, in front of a stand-in API that
// reads and drops what it gets.
func stallingProxy(tb testing.TB) (*Proxy, string) {
	tb.Helper()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	tb.Cleanup(upstream.Close)
	sock := filepath.Join(tb.TempDir(), "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := Start(ln, "http://127.0.0.1:3128", KeyCredential(APIKey, "test", "sk-ant-api03-real"), upstream.URL, &Policy{}, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Close() })
	return p, sock
}

// stallUploads opens n connections to the proxy's socket and on each
// starts a Messages API call of 64 MiB, sends sent bytes of it and
// stalls. It returns when every byte sent has left the client.
func stallUploads(tb testing.TB, p *Proxy, sock string, n, sent int) []net.Conn {
	tb.Helper()
	head := fmt.Sprintf("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", p.Phantom, 64<<20)
	prefix := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"`
	body := []byte(prefix + strings.Repeat("a", sent-len(prefix)))
	conns := make([]net.Conn, n)
	done := make(chan error, n)
	for i := range conns {
		c, err := net.Dial("unix", sock)
		if err != nil {
			tb.Fatal(err)
		}
		conns[i] = c
		go func() {
			_, err := io.WriteString(c, head)
			if err == nil {
				_, err = c.Write(body)
			}
			done <- err
		}()
	}
	for range conns {
		if err := <-done; err != nil {
			tb.Fatal(err)
		}
	}
	return conns
}

// rss is this process's resident memory, from /proc.
func rss(tb testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// BenchmarkStalledUploads: the supervisor's memory while the sandbox holds
// 256 uploads to the API (the most connections it is served), each
// stalled after 1 MiB: the growth of the process's resident memory and of
// its heap (MiB).
func BenchmarkStalledUploads(b *testing.B) {
	const conns, sent = 256, 1 << 20
	for range b.N {
		p, sock := stallingProxy(b)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rssBefore := rss(b)
		held := stallUploads(b, p, sock, conns, sent)
		time.Sleep(200 * time.Millisecond)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(rss(b)-rssBefore)/(1<<20), "rss-MiB")
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "heap-MiB")
		for _, c := range held {
			c.Close()
		}
		p.Close()
	}
}

// A body that stops coming is dropped after bodyIdle: its connection, and
// the slot it holds among the proxy's connections, are given back.
func TestStalledBodyDropped(t *testing.T) {
	defer func(d time.Duration) { bodyIdle = d }(bodyIdle)
	bodyIdle = 200 * time.Millisecond
	p, sock := stallingProxy(t)
	held := stallUploads(t, p, sock, 1, 4096)
	c := held[0]
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		_, err = c.Read(make([]byte, 1))
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a stalled upload still holds its connection after 10 s")
	}
}

// The body's deadlines are the body's: a request without one, or whose
// body has all come, may wait for its answer as long as it takes (a
// download by plain HTTP, a long model reply).
func TestSlowAnswerOutlivesBodyDeadline(t *testing.T) {
	defer func(d time.Duration) { bodyIdle = d }(bodyIdle)
	bodyIdle = 100 * time.Millisecond
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		time.Sleep(500 * time.Millisecond)
		io.WriteString(w, "late answer")
	}))
	defer slow.Close()
	px := startEgress(t, mustPolicy(t, []string{strings.TrimPrefix(slow.URL, "http://")}, nil), &stubNet{}, io.Discard)
	for _, body := range []string{"", "some body"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(px.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST %s/x HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", slow.URL, strings.TrimPrefix(slow.URL, "http://"), len(body), body)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		var got []byte
		if err == nil {
			got, err = io.ReadAll(resp.Body)
		}
		if string(got) != "late answer" {
			t.Errorf("a request with the body %q: got %q, %v", body, got, err)
		}
	}
}

// TestHeaderFieldsBounded: a request's header passes with up to
// maxHeaderFields fields, counted anew for each request on a connection;
// one more and the connection ends with a 431. A body's lines are not
// fields, and an empty line ahead of the request ends it as malformed,
// never turning the count off for the fields after it.
func TestHeaderFieldsBounded(t *testing.T) {
	_, sock := stallingProxy(t)
	fields := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%x:\r\n", i)
		}
		return b.String()
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	status := func(head string) int {
		method, _, _ := strings.Cut(strings.TrimLeft(head, "\r\n"), " ")
		t.Helper()
		if _, err := io.WriteString(c, head); err != nil {
			return 0
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	hello := "HEAD /api/hello HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n"
	// A body of many lines, then two requests of the most fields.
	body := strings.Repeat("a\n", 4*maxHeaderFields)
	if got := status("POST /v1/nothing HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body); got != http.StatusForbidden {
		t.Errorf("a body of %d lines: %d, want 403", 4*maxHeaderFields, got)
	}
	for range 2 {
		if got := status(hello + fields(maxHeaderFields-1) + "\r\n"); got != http.StatusOK {
			t.Fatalf("a request of %d fields: %d, want 200", maxHeaderFields, got)
		}
	}
	if got := status(hello + fields(maxHeaderFields) + "\r\n"); got != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request of %d fields: %d, want 431", maxHeaderFields+1, got)
	}
	c2, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c, br = c2, bufio.NewReader(c2)
	if got := status("\r\n" + hello + fields(4*maxHeaderFields) + "\r\n"); got == http.StatusOK {
		t.Errorf("an empty line, then a request of %d fields: 200", 4*maxHeaderFields)
	}
}

// TestAnswerHeaderFieldsBounded: an allowed server's answer passes with
// up to maxHeaderFields fields, those of the informational answers
// before it (103 Early Hints) counted with them, and a body of many
// lines after; one with more is a 502 that says why.
func TestAnswerHeaderFieldsBounded(t *testing.T) {
	fields := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%x:\r\n", i)
		}
		return b.String()
	}
	body := strings.Repeat("a\n", 4*maxHeaderFields)
	answers := map[string]string{
		"/most":  "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n" + fields(maxHeaderFields-2) + "\r\n" + body,
		"/more":  "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n" + fields(maxHeaderFields-1) + "\r\n" + body,
		"/first": "\r\nHTTP/1.1 200 OK\r\n" + fields(4*maxHeaderFields) + "\r\n",
	}
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
			go func() {
				defer c.Close()
				r, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.WriteString(c, answers[r.URL.Path])
			}()
		}
	}()
	px := startEgress(t, mustPolicy(t, []string{ln.Addr().String()}, nil), &stubNet{}, io.Discard)
	pu, _ := url.Parse(px.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	get := func(path string) (int, string) {
		resp, err := client.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if s, b := get("/most"); s != http.StatusOK || b != body {
		t.Errorf("an answer of %d fields: %d %.80q", maxHeaderFields, s, b)
	}
	if s, b := get("/more"); s != http.StatusBadGateway || !strings.Contains(b, "more than 128 fields") {
		t.Errorf("an answer of %d fields: %d %.200q, want 502", maxHeaderFields+1, s, b)
	}
	if s, _ := get("/first"); s == http.StatusOK {
		t.Errorf("an empty line, then an answer of %d fields: 200", 4*maxHeaderFields)
	}
}
