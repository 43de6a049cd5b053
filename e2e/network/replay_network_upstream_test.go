package network

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// upstreamProxy is a stand-in for the host's own proxy on loopback: it
// records each CONNECT target and answers the tunnel as a web server
// would, with HELLO-VIA-UPSTREAM.
type upstreamProxy struct {
	addr    string
	mu      sync.Mutex
	targets []string
}

func startUpstreamProxy(t *testing.T) *upstreamProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	u := &upstreamProxy{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil || req.Method != http.MethodConnect {
					return
				}
				u.mu.Lock()
				u.targets = append(u.targets, req.Host)
				u.mu.Unlock()
				io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
				if _, err := http.ReadRequest(r); err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 19\r\nConnection: close\r\n\r\nHELLO-VIA-UPSTREAM\n")
			}()
		}
	}()
	return u
}

func (u *upstreamProxy) connects() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.targets...)
}

// TestReplayNetworkUpstreamProxy: on a network where the host reaches out
// through its own proxy (HTTPS_PROXY), the filtered network's way out goes
// through it too. The attack: have the host's proxy reach what the filtered
// network refuses, an allowed name that resolves into the host's
// network (rebind.test, 127.0.0.1 by the test's resolver) and a name not
// listed. The proof, on the host side: the host's proxy sees a CONNECT
// for the allowed name only (by name: the host cannot resolve it), never
// for the refused ones; under --network=host the variables pass in as
// they are.
func TestReplayNetworkUpstreamProxy(t *testing.T) {
	h := harness.NewHost(t)
	up := startUpstreamProxy(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "allow-hosts = [\"outside.test\", \"rebind.test\"]\n")
	env := []string{"HTTPS_PROXY=http://" + up.addr, "NO_PROXY=corp.test", "CLAUDEBOX_RESOLVE=rebind.test=127.0.0.1"}
	out := h.Inside(proj, env, `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		check via-upstream 'test "$(curl -sS --max-time 20 -p http://outside.test/hello)" = HELLO-VIA-UPSTREAM'
		check rebind-refused '! curl -sS --max-time 20 -p http://rebind.test/ 2>/tmp/err && grep -q 403 /tmp/err'
		check unlisted-refused '! curl -sS --max-time 20 -p http://unlisted.test/ 2>/tmp/err && grep -q 403 /tmp/err'
		check relay-env 'test "$HTTPS_PROXY $NO_PROXY" = "http://127.0.0.1:3128 localhost,127.0.0.1,::1"'
	`)
	t.Log(out)
	if strings.Contains(out, "FAIL") || strings.Count(out, "ok ") != 4 {
		t.Errorf("inside:\n%s", out)
	}
	if got := up.connects(); len(got) != 1 || got[0] != "outside.test:80" {
		t.Errorf("the host's proxy was asked for %q, want only outside.test:80", got)
	}
	if got := h.Run(proj, env, "claudebox", "--network=host", "--shell", "-c", `echo "$HTTPS_PROXY $NO_PROXY"`); got != "http://"+up.addr+" corp.test\n" {
		t.Errorf("under --network=host, inside: %q", got)
	}
}
