package network

import (
	"bufio"
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// flood is a session whose script floods the supervisor from inside: it
// says where it is by the files it makes in the project, and ends once
// the test makes done there (stop).
type flood struct {
	t     *testing.T
	cmd   *exec.Cmd
	proj  string
	out   bytes.Buffer
	ended chan struct{}
}

// startFlood starts cmd, a session in proj, as a flood; the caller defers
// its stop before what the session holds (a server whose Close waits for
// the answers the sandbox does not read) goes.
func startFlood(t *testing.T, cmd *exec.Cmd, proj string) *flood {
	f := &flood{t: t, cmd: cmd, proj: proj, ended: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &f.out, &f.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(f.ended) }()
	return f
}

// stop ends the session: done, then a kill after 90 s.
func (f *flood) stop() {
	os.WriteFile(filepath.Join(f.proj, "done"), nil, 0o644)
	select {
	case <-f.ended:
	case <-time.After(90 * time.Second):
		f.cmd.Process.Kill()
		<-f.ended
	}
}

// waitFor waits until the session made name in the project.
func (f *flood) waitFor(name string) {
	f.t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); ; {
		if _, err := os.Stat(filepath.Join(f.proj, name)); err == nil {
			return
		}
		select {
		case <-f.ended:
			f.t.Fatalf("the session ended before %s:\n%s", name, f.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the sandbox never made %s:\n%s", name, f.out.String())
		}
	}
}

// waitStill waits until done says the flood is all sent and value (what
// the API wrote, the supervisor's memory) has held still for 2 s.
func (f *flood) waitStill(done func() bool, value func() int64, what string) {
	f.t.Helper()
	last, still := int64(-1), 0
	for deadline := time.Now().Add(3 * time.Minute); still < 8; {
		select {
		case <-f.ended:
			f.t.Fatalf("the session ended before %s:\n%s", what, f.out.String())
		case <-time.After(250 * time.Millisecond):
		}
		if n := value(); done() && n == last {
			still++
		} else {
			last, still = n, 0
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("not %s in 3 minutes:\n%s", what, f.out.String())
		}
	}
}

// TestReplayReview16HeaderFields: the proxy bounded a request's header
// at 64 KiB, but not how many fields it holds, and net/http keeps each
// field as a map entry and a string of its own: 64 KiB of fields of a
// few bytes each (`1a2b:`) is near a MiB of the supervisor's heap, held
// as long as the request is (a tunnel's whole life; a header not yet
// ended, 30 s, again and again). The attack, from inside: 255
// connections (what the proxy serves at once, less the accept its
// socket waits in), each a CONNECT to an allowed host that holds on,
// with 8,700 such fields. The proof, on the host: the supervisor's
// resident memory grows by less than 96 MiB (before the bound on
// fields it grew by about 250 MiB), and a request with the fields a
// client sends still passes.
func TestReplayReview16HeaderFields(t *testing.T) {
	h := harness.NewHost(t)
	// The allowed host holds every connection and says nothing.
	ln, open := holdingServer(t)
	defer ln.Close()
	target := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	// Each connection's header: the CONNECT, 8,705 fields of 7 bytes
	// (about 60 KiB), its end. The proxy's accepted sockets are in the
	// sandbox's network namespace: the script waits until the supervisor
	// has read all of them (no byte left in their queues), then says so.
	cmd := h.Command(proj, nil, "claudebox", "--shell", "--allow-host", target, "-c", `
		{ printf 'CONNECT `+target+` HTTP/1.1\r\nHost: `+target+`\r\n'; printf '%x:\r\n' $(seq 4096 12800); printf '\r\n'; } >/tmp/head
		printf 'CONNECT `+target+` HTTP/1.1\r\nHost: `+target+`\r\nUser-Agent: curl/8\r\nAccept: */*\r\n\r\n' >/tmp/plain
		exec {fd}<>/dev/tcp/127.0.0.1/3128 && cat /tmp/plain >&$fd && head -c 12 <&$fd >plain.answer
		touch started
		for i in $(seq 600); do test -e measured && break; sleep 0.1; done
		for i in $(seq 254); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			cat /tmp/head >&$fd
		done
		for i in $(seq 1200); do
			awk 'NR > 1 && $2 ~ /:0C38$/ && $5 != "00000000:00000000" { busy = 1 } END { exit busy }' /proc/net/tcp && break
			sleep 0.1
		done
		touch held
		for i in $(seq 1200); do test -e done && break; sleep 0.1; done
	`)
	f := startFlood(t, cmd, proj)
	defer f.stop()
	f.waitFor("started")
	idle, _ := harness.SupervisorKB(t, cmd.Process.Pid)
	os.WriteFile(filepath.Join(proj, "measured"), nil, 0o644)
	f.waitFor("held")
	held, hwm := harness.SupervisorKB(t, cmd.Process.Pid)
	t.Logf("supervisor: %d KiB idle, %d KiB with the headers held (peak %d KiB); %d tunnels opened", idle, held, hwm, open.Load())
	if grew := held - idle; grew > 96<<10 {
		t.Errorf("255 headers of 8,705 fields grew the supervisor's resident memory by %d MiB", grew>>10)
	}
	if answer, _ := os.ReadFile(filepath.Join(proj, "plain.answer")); string(answer) != "HTTP/1.1 200" {
		t.Errorf("a CONNECT with a client's few fields got %q, want HTTP/1.1 200:\n%s", answer, f.out.String())
	}
}

// TestReplayReview16StalledAnswers: the proxy reaches the API over
// HTTP/2, whose client takes up to 4 MiB of each answer ahead of its
// reader (Go's default window for a stream), and the reader is the
// sandbox: an API call whose streamed answer it never reads held 4 MiB
// of the supervisor's memory, 1 GiB over the proxy's connections (an
// answer of 64,000 tokens streams several MiB). The attack, from
// inside: 48 Messages API calls with the session's phantom, none of
// whose answers is read. The API here answers each with 8 MiB, over
// HTTP/2 with TLS (a CA the host trusts). The proof, on the host: the
// supervisor's resident memory grows by less than 64 MiB (it grew by
// about 190 MiB before).
func TestReplayReview16StalledAnswers(t *testing.T) {
	h := harness.NewHost(t)
	const calls = 48
	var written, started atomic.Int64
	api := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		started.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := []byte("event: ping\ndata: {\"type\": \"ping\", \"pad\": \"" + strings.Repeat("x", 32<<10) + "\"}\n\n")
		for sent := 0; sent < 8<<20; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			written.Add(int64(len(chunk)))
		}
	}))
	api.EnableHTTP2 = true
	api.StartTLS()
	defer api.Close()
	caFile := filepath.Join(h.Base, "corp", "ca.pem")
	h.Write(caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})))
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	env := []string{"ANTHROPIC_API_KEY=sk-ant-real-key", "ANTHROPIC_BASE_URL=" + api.URL, "NODE_EXTRA_CA_CERTS=" + caFile}
	const body = `{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	cmd := h.Command(proj, env, "claudebox", "--shell", "-c", `
		touch started
		for i in $(seq 600); do test -e measured && break; sleep 0.1; done
		for i in $(seq `+strconv.Itoa(calls)+`); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			printf 'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:3128\r\nX-Api-Key: %s\r\nContent-Type: application/json\r\nContent-Length: `+strconv.Itoa(len(body))+`\r\n\r\n%s' "$ANTHROPIC_API_KEY" '`+body+`' >&$fd
		done
		for i in $(seq 1200); do test -e done && break; sleep 0.1; done
	`)
	f := startFlood(t, cmd, proj)
	defer f.stop()
	f.waitFor("started")
	idle, _ := harness.SupervisorKB(t, cmd.Process.Pid)
	os.WriteFile(filepath.Join(proj, "measured"), nil, 0o644)
	// Every call has begun its answer, and the API has written all it
	// can: nothing more for 2 s.
	f.waitStill(func() bool { return started.Load() == calls }, written.Load, fmt.Sprintf("%d calls answered", calls))
	held, hwm := harness.SupervisorKB(t, cmd.Process.Pid)
	t.Logf("supervisor: %d KiB idle, %d KiB with %d answers unread (peak %d KiB); the API wrote %d MiB", idle, held, calls, hwm, written.Load()>>20)
	if grew := held - idle; grew > 64<<10 {
		t.Errorf("%d API answers the sandbox does not read grew the supervisor's resident memory by %d MiB", calls, grew>>10)
	}
}

// TestReplayReview16SSHAgentConfirmAtExit: the SSH agent's filter, at
// the session's end, waited for every request it had passed on to your
// agent, up to its 2 minutes for an answer. A key added with `ssh-add
// -c` (or one on a token that waits for a touch) has your agent ask you
// first: the sandbox asks for a git signature, which the filter passes
// on, and ends at once; claudebox did not return while the question
// stood open. The proof, on the host: claudebox exits while the
// question is still unanswered.
func TestReplayReview16SSHAgentConfirmAtExit(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "ssh-agent", "apt-get install openssh-client")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	// The question: it says it was asked (in the project, where the
	// sandbox sees it), and is answered only once the test says so, or
	// its files are gone (else it outlives the test, asking forever).
	askpass := filepath.Join(h.Base, "askpass")
	h.Write(askpass, "#!/bin/sh\ntouch "+filepath.Join(proj, "asked")+"\nwhile test -d "+h.Base+" && ! test -e "+filepath.Join(h.Base, "answer")+"; do sleep 0.1; done\n")
	os.Chmod(askpass, 0o755)
	key := filepath.Join(h.Home, ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(key), 0o700)
	h.Chown()
	h.Run(h.Home, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@example.com", "-f", key)
	sock := filepath.Join(h.Base, "confirm-agent.sock")
	agent := h.Command(h.Base, []string{"SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=:0"}, "ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()
	defer os.WriteFile(filepath.Join(h.Base, "answer"), nil, 0o644)
	harness.WaitFor(t, "ssh-agent's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	env := []string{"SSH_AUTH_SOCK=" + sock}
	h.Run(h.Home, env, "ssh-add", "-q", "-c", key)
	cmd := h.Command(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		echo data > /tmp/data
		ssh-keygen -Y sign -n git -f ~/.ssh/id_ed25519.pub /tmp/data >/dev/null 2>&1 &
		for i in $(seq 1200); do test -e asked && break; sleep 0.1; done
		test -e asked && echo ASKED`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(90 * time.Second):
		os.WriteFile(filepath.Join(h.Base, "answer"), nil, 0o644)
		<-ended
		t.Fatalf("claudebox did not return while your agent's question stood open:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "ASKED") {
		t.Fatalf("your agent never asked:\n%s", out.String())
	}
}

// TestReplayReview16AnswerHeaderFields: what an allowed server answers a
// plain-HTTP request with is held as the request's header is (net/http
// keeps each field as a map entry and a string of its own), bounded in
// bytes (64 KiB) but not in fields, and with no deadline while it comes:
// a server the sandbox chose that sends 60 KiB of fields of a few bytes
// and never ends its header held near a MiB of the supervisor's memory
// for each request. The attack, from inside: 200 requests by absolute
// URL to such a server (here on the host's loopback, listed by
// address). The proof, on the host: the supervisor's resident memory
// grows by less than 64 MiB (about 200 MiB before), and an answer with a
// server's usual fields still passes.
func TestReplayReview16AnswerHeaderFields(t *testing.T) {
	h := harness.NewHost(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var fields bytes.Buffer
	for i := 4096; fields.Len() < 60<<10; i++ {
		fmt.Fprintf(&fields, "%x:\r\n", i)
	}
	var sent atomic.Int32
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			go func() {
				line, _ := bufio.NewReader(c).ReadString('\n')
				if strings.Contains(line, "/plain") {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nServer: test\r\nContent-Length: 6\r\n\r\nPLAIN\n")
					return
				}
				// The header's fields, and never its end.
				io.WriteString(c, "HTTP/1.1 200 OK\r\n")
				c.Write(fields.Bytes())
				sent.Add(1)
			}()
		}
	}()
	target := "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	const requests = 200
	cmd := h.Command(proj, nil, "claudebox", "--shell", "--allow-host", target, "-c", `
		curl -sS --max-time 60 --proxy http://127.0.0.1:3128 --noproxy "" http://`+target+`/plain > plain.answer 2>&1
		touch started
		for i in $(seq 600); do test -e measured && break; sleep 0.1; done
		for i in $(seq `+strconv.Itoa(requests)+`); do
			exec {fd}<>/dev/tcp/127.0.0.1/3128 || break
			printf 'GET http://`+target+`/%d HTTP/1.1\r\nHost: `+target+`\r\n\r\n' $i >&$fd
		done
		for i in $(seq 1200); do test -e done && break; sleep 0.1; done
	`)
	f := startFlood(t, cmd, proj)
	defer f.stop()
	f.waitFor("started")
	idle, _ := harness.SupervisorKB(t, cmd.Process.Pid)
	os.WriteFile(filepath.Join(proj, "measured"), nil, 0o644)
	// The server has sent every header it will, and the supervisor has
	// read what it takes of them: its memory holds still for 2 s.
	f.waitStill(func() bool { return sent.Load() == requests }, func() int64 { rss, _ := harness.SupervisorKB(t, cmd.Process.Pid); return int64(rss) }, fmt.Sprintf("%d answers sent", requests))
	held, hwm := harness.SupervisorKB(t, cmd.Process.Pid)
	t.Logf("supervisor: %d KiB idle, %d KiB with %d answers' fields held (peak %d KiB)", idle, held, requests, hwm)
	if grew := held - idle; grew > 64<<10 {
		t.Errorf("%d answers of 8,700 fields grew the supervisor's resident memory by %d MiB", requests, grew>>10)
	}
	if answer, _ := os.ReadFile(filepath.Join(proj, "plain.answer")); string(answer) != "PLAIN\n" {
		t.Errorf("an answer with a server's usual fields: %q, want PLAIN", answer)
	}
}
