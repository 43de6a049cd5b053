package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claudebox/claudebox/proxy"
)

// TestReplayAttackProxyDotDot: the proxy passes GET /v1/models/<anything>
// and checks r.URL.Path, which Go's server does not clean for a plain
// handler, so a hostile agent holding the phantom sends
// "GET /v1/models/../../v1/files" (or ..%2F-encoded segments, which a
// gateway decodes). The proxy forwards the raw path with the real
// credential put in; the upstream (any server that resolves dot segments,
// as RFC 3986 says it should) then answers an endpoint outside the
// allowlist: the organisation's uploaded files, message batches of other
// projects, the OAuth profile. The proof, on the host side: the upstream,
// which knows only the real key, receives a request for a path that is not
// an allowed one, carrying the real key, and its answer reaches the
// sandbox.
func TestReplayAttackProxyDotDot(t *testing.T) {
	const real = "sk-ant-api03-REALKEY-host-only"
	var mu sync.Mutex
	var leaked []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == real && (strings.Contains(r.RequestURI, "..") || !strings.HasPrefix(r.RequestURI, "/v1/models")) {
			mu.Lock()
			leaked = append(leaked, r.Method+" "+r.RequestURI)
			mu.Unlock()
			fmt.Fprint(w, `{"data":["org-secret-file"]}`)
			return
		}
		fmt.Fprint(w, `{"data":[]}`)
	}))
	defer upstream.Close()
	cred, err := proxy.Find(t.TempDir(), t.TempDir(), func(k string) (string, bool) {
		if k == "ANTHROPIC_API_KEY" {
			return real, true
		}
		return "", false
	}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	ln, url, err := proxy.ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(ln, url, cred, upstream.URL, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var answers []string
	for _, target := range []string{"/v1/models/../../v1/files", "/v1/models/..%2F..%2Fv1%2Ffiles", "/v1/models/x/../../../api/oauth/profile"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nX-Api-Key: %s\r\nConnection: close\r\n\r\n", target, p.Phantom)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			answers = append(answers, target+" -> "+resp.Status+" "+string(b))
		}
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	// httptest's server does not clean the path either; the RequestURI it
	// logs is what a cleaning upstream would resolve to another endpoint.
	var outside []string
	for _, l := range leaked {
		if strings.Contains(l, "..") {
			outside = append(outside, l)
		}
	}
	if len(outside) > 0 {
		t.Errorf("the upstream received, with the real key, requests that resolve outside the allowlist: %q; the sandbox read: %q", outside, answers)
	}
}

// TestReplayAttackProxyLogFlood: every refused request writes a JSON line
// with its whole path to ~/.claudebox/proxy.log, outside the instance,
// with no bound on a line or on the file, which no claudebox command ever
// trims. The sandbox sends refused requests whose path is near Go's 1 MiB
// header limit, with no phantom needed. Host-side proof: 32 such requests
// (a fraction of a second) grow the host's proxy.log by over 30 MiB, which
// stays after the session.
func TestReplayAttackProxyLogFlood(t *testing.T) {
	cred, err := proxy.Find(t.TempDir(), t.TempDir(), func(k string) (string, bool) {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-api03-real", true
		}
		return "", false
	}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "proxy.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	ln, url, err := proxy.ListenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(ln, url, cred, "http://127.0.0.1:9", nil, log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	long := "/" + strings.Repeat("A", 1000<<10)
	for range 32 {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", long)
		io.Copy(io.Discard, c)
		c.Close()
	}
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > 30<<20 {
		t.Errorf("32 refused requests from the sandbox wrote %d MiB to the host's proxy.log", fi.Size()>>20)
	}
}
