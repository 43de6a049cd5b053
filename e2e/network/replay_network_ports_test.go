package network

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// waitFile waits for path to appear, as long as done has not closed.
func waitFileUntil(t *testing.T, path string, done <-chan struct{}) bool {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		select {
		case <-done:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestReplayNetworkPorts: --publish and --forward under the filtered
// network, both ways with real servers on loopback. The attack, from
// inside: reach a port of the host's loopback that is not forwarded, by
// the relay's CONNECT (as a replaced relay would) and by asking the proxy
// to park a connection for a port not published. The proof, on the host
// side: the host's client reads the server inside through the published
// port, the forwarded server answers inside, the other port's server sees
// no connection, and the proxy's log names the refusals.
func TestReplayNetworkPorts(t *testing.T) {
	h := harness.NewHost(t)
	served := filepath.Join(h.Base, "served")
	h.Write(filepath.Join(served, "x"), "x\n")
	forwarded := hostServer(t, served)
	fport := forwarded[strings.LastIndex(forwarded, ":")+1:]
	// The port not forwarded: any connection to it fails the test.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reached := make(chan struct{}, 1)
	go func() {
		if c, err := other.Accept(); err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	oport := strconv.Itoa(other.Addr().(*net.TCPAddr).Port)
	hostPort := strconv.Itoa(harness.FreePort(t))
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")

	cmd := h.Command(proj, nil, "claudebox", "--shell", "--publish", hostPort+":8080", "--forward", fport, "-c", `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		socat TCP-LISTEN:8080,bind=127.0.0.1,fork,reuseaddr SYSTEM:"echo HELLO-FROM-INSIDE" &
		check forwarded 'test "$(curl --noproxy "*" -sS --max-time 20 http://127.0.0.1:`+fport+`/hello)" = HELLO-FROM-THE-HOST'
		check other-not-listening '! curl --noproxy "*" -sS --max-time 20 http://127.0.0.1:`+oport+`/ 2>/dev/null'
		check other-by-connect 'test "$(curl -sS --max-time 20 -o /dev/null -w %{http_code} --noproxy "" -x http://127.0.0.1:3128 http://127.0.0.1:`+oport+`/)" = 403'
		check other-tunnel '! curl -sS --max-time 20 -p --noproxy "" -x http://127.0.0.1:3128 http://127.0.0.1:`+oport+`/ 2>/tmp/err && grep -q 403 /tmp/err'
		check park-unpublished 'test "$(curl --noproxy "*" -sS --max-time 20 -o /dev/null -w %{http_code} http://127.0.0.1:3128/.claudebox/publish/`+oport+`)" = 403'
		for i in $(seq 100); do curl --noproxy "*" -s --max-time 1 http://127.0.0.1:8080 >/dev/null 2>&1 && break; sleep 0.1; done
		touch ready
		for i in $(seq 600); do test -e done && break; sleep 0.1; done
	`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	defer func() {
		os.WriteFile(filepath.Join(proj, "done"), nil, 0o644)
		<-ended
	}()
	if !waitFileUntil(t, filepath.Join(proj, "ready"), ended) {
		t.Fatalf("the session ended first:\n%s\n%s", stdout.String(), stderr.String())
	}
	var got string
	for i := 0; i < 50 && got == ""; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+hostPort)
		if err != nil {
			t.Fatalf("the published port does not listen on the host: %v", err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		b, _ := io.ReadAll(c)
		c.Close()
		got = string(b)
		if got == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if got != "HELLO-FROM-INSIDE\n" {
		t.Errorf("the host read %q through the published port", got)
	}
	os.WriteFile(filepath.Join(proj, "done"), nil, 0o644)
	<-ended
	out := stdout.String()
	t.Log(out)
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "ok park-unpublished") {
		t.Errorf("inside:\n%s\n%s", out, stderr.String())
	}
	select {
	case <-reached:
		t.Error("a connection from inside reached the host's port that is not forwarded")
	default:
	}
	log := h.SessionLogs()
	for _, want := range []string{`"target":"127.0.0.1:` + oport + `"`, `"path":"/.claudebox/publish/` + oport + `"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the session's log lacks %s:\n%s", want, log)
		}
	}
	// The published port is the session's: closed when it ends.
	if c, err := net.Dial("tcp", "127.0.0.1:"+hostPort); err == nil {
		c.Close()
		t.Error("the published port still listens after the session")
	}
}
