package sshagent

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func requireTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: apt-get install openssh-client", name)
		}
		t.Skipf("SKIPPING: %s is not installed (apt-get install openssh-client)", name)
	}
}

// startAgent starts a real ssh-agent holding new keys, one per comment,
// and returns its socket and the keys' files (only their .pub is left).
func startAgent(t *testing.T, comments ...string) (sock string, keys []string) {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		requireTool(t, tool)
	}
	dir := t.TempDir()
	sock = filepath.Join(dir, "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ssh-agent did not start")
		}
	}
	for _, c := range comments {
		key := filepath.Join(dir, c)
		run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", c, "-f", key)
		run(t, sock, "ssh-add", "-q", key)
		// Signing must go through the agent: ssh-keygen -Y sign
		// would read a private key beside the .pub.
		os.Remove(key)
		keys = append(keys, key)
	}
	return sock, keys
}

// serveFilter serves a filter of the agent at upstream and returns its
// socket.
func serveFilter(t *testing.T, upstream string, allowed ...string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "filter.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	f := Serve(ln, upstream, Rules{Keys: allowed})
	t.Cleanup(func() { f.Close() })
	return sock
}

// run runs a command with SSH_AUTH_SOCK=agent and returns its output;
// it fails the test if the command does.
func run(t *testing.T, agent string, name string, args ...string) string {
	t.Helper()
	out, err := try(agent, name, args...)
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return out
}

func try(agent string, name string, args ...string) (string, error) {
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), "SSH_AUTH_SOCK="+agent)
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestFilterRefusesChanges: through the filter, the real ssh-add lists
// the agent's key and ssh-keygen signs with it, while adding a key,
// removing one or all, and locking the agent fail; the agent itself
// still holds its key alone, unlocked.
func TestFilterRefusesChanges(t *testing.T) {
	upstream, keys := startAgent(t, "alice@example.com")
	filter := serveFilter(t, upstream)
	before := run(t, upstream, "ssh-add", "-l")
	if out := run(t, filter, "ssh-add", "-l"); out != before {
		t.Errorf("ssh-add -l through the filter:\n%s\nthe agent's own:\n%s", out, before)
	}
	evil := filepath.Join(t.TempDir(), "evil")
	run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "attacker", "-f", evil)
	askpass := filepath.Join(t.TempDir(), "askpass")
	os.WriteFile(askpass, []byte("#!/bin/sh\necho hunter2\n"), 0o755)
	for name, args := range map[string][]string{
		"add":        {"ssh-add", "-q", evil},
		"remove":     {"ssh-add", "-q", "-d", keys[0] + ".pub"},
		"remove all": {"ssh-add", "-q", "-D"},
		"lock":       {"env", "SSH_ASKPASS=" + askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=:0", "ssh-add", "-x"},
	} {
		if out, err := try(filter, args[0], args[1:]...); err == nil {
			t.Errorf("%s through the filter succeeded: %s", name, out)
		}
	}
	if after := run(t, upstream, "ssh-add", "-l"); after != before {
		t.Errorf("the agent changed through the filter:\n%s\nwas\n%s", after, before)
	}
	data := filepath.Join(t.TempDir(), "data")
	os.WriteFile(data, []byte("signed\n"), 0o644)
	run(t, filter, "ssh-keygen", "-q", "-Y", "sign", "-f", keys[0]+".pub", "-n", "git", data)
	pub, _ := os.ReadFile(keys[0] + ".pub")
	signers := filepath.Join(t.TempDir(), "signers")
	os.WriteFile(signers, []byte("alice@example.com "+string(pub)), 0o644)
	verify := exec.Command("ssh-keygen", "-Y", "verify", "-f", signers, "-I", "alice@example.com", "-n", "git", "-s", data+".sig")
	verify.Stdin, _ = os.Open(data)
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("the signature made through the filter: %v\n%s", err, out)
	}
}

// TestFilterAllowedKeys: with keys named by their fingerprints as
// ssh-keygen -l shows them, the filter lists only those, and signs only
// with those.
func TestFilterAllowedKeys(t *testing.T) {
	upstream, keys := startAgent(t, "work", "personal")
	fingerprint := strings.Fields(run(t, "", "ssh-keygen", "-l", "-E", "sha256", "-f", keys[1]+".pub"))[1]
	filter := serveFilter(t, upstream, fingerprint)
	if out := run(t, filter, "ssh-add", "-l"); strings.Contains(out, "work") || !strings.Contains(out, fingerprint+" personal") {
		t.Errorf("ssh-add -l through a filter allowing %s:\n%s", fingerprint, out)
	}
	data := filepath.Join(t.TempDir(), "data")
	os.WriteFile(data, []byte("signed\n"), 0o644)
	if out, err := try(filter, "ssh-keygen", "-q", "-Y", "sign", "-f", keys[0]+".pub", "-n", "git", data); err == nil {
		t.Errorf("signed with a key not allowed: %s", out)
	}
	run(t, filter, "ssh-keygen", "-q", "-Y", "sign", "-f", keys[1]+".pub", "-n", "git", data)
}

// TestFingerprintCertificate: a certificate's fingerprint is its key's,
// as ssh-keygen -l shows it, so a key named in config lets its
// certificate through too.
func TestFingerprintCertificate(t *testing.T) {
	requireTool(t, "ssh-keygen")
	dir := t.TempDir()
	for _, name := range []string{"ca", "user"} {
		run(t, "", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", filepath.Join(dir, name))
	}
	run(t, "", "ssh-keygen", "-q", "-s", filepath.Join(dir, "ca"), "-I", "alice", "-n", "alice", filepath.Join(dir, "user.pub"))
	for _, file := range []string{"user.pub", "user-cert.pub"} {
		line, _ := os.ReadFile(filepath.Join(dir, file))
		blob, err := base64.StdEncoding.DecodeString(strings.Fields(string(line))[1])
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(run(t, "", "ssh-keygen", "-l", "-E", "sha256", "-f", filepath.Join(dir, file)))[1]
		if got := Fingerprint(blob); got != want {
			t.Errorf("Fingerprint(%s) = %s, ssh-keygen -l says %s", file, got, want)
		}
	}
}

// recordingAgent is a stand-in for the user's agent that counts the
// connections made to it and answers every request with a failure.
func recordingAgent(t *testing.T) (sock string, conns <-chan struct{}) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	made := make(chan struct{}, 64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			made <- struct{}{}
			go func() {
				defer c.Close()
				for {
					if _, err := readMessage(c, time.Minute); err != nil {
						return
					}
					writeMessage(c, failure)
				}
			}()
		}
	}()
	return sock, made
}

func dial(t *testing.T, sock string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closed says the filter closed c (rather than leaving it open until the
// test's own deadline).
func closed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, c)
	// A close with the request unread resets the connection.
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestFilterNeverForwards: adding a key (with and without constraints),
// removing, locking, unlocking, every extension but session-bind, and a
// session-bind that does not read as one, are answered with a failure,
// and the user's agent is not even connected to.
func TestFilterNeverForwards(t *testing.T) {
	upstream, conns := recordingAgent(t)
	c := dial(t, serveFilter(t, upstream))
	for _, req := range [][]byte{
		{17, 0, 0, 0, 0},
		{25},
		{18},
		{19},
		{22, 0, 0, 0, 1, 'x'},
		{23, 0, 0, 0, 1, 'x'},
		{20},
		{24},
		append([]byte{27}, appendString(nil, []byte("session-bind@openssh.com"))...),
		append([]byte{27}, appendString(nil, []byte("query"))...),
		{11, 0},
		{13, 0, 0, 0, 1},
		{1},
		{200},
	} {
		if err := writeMessage(c, req); err != nil {
			t.Fatal(err)
		}
		answer, err := readMessage(c, 10*time.Second)
		if err != nil || string(answer) != string(failure) {
			t.Errorf("request of type %d: answer %v, %v; want a failure", req[0], answer, err)
		}
	}
	select {
	case <-conns:
		t.Error("the filter connected to the user's agent for a request it refuses")
	default:
	}
}

// TestFilterBounds: a message longer than OpenSSH's bound, or one begun
// and not finished, or none at all, ends its connection; a connection
// beyond the bound is closed at once, and once the stalled ones end the
// filter serves again.
func TestFilterBounds(t *testing.T) {
	defer func(m, i time.Duration) { messageTimeout, idleTimeout = m, i }(messageTimeout, idleTimeout)
	messageTimeout, idleTimeout = 200*time.Millisecond, 500*time.Millisecond
	upstream, _ := recordingAgent(t)
	filter := serveFilter(t, upstream)

	long := dial(t, filter)
	binary.Write(long, binary.BigEndian, uint32(maxMessage+1))
	if !closed(long) {
		t.Error("a message over the bound did not end its connection")
	}
	begun := dial(t, filter)
	binary.Write(begun, binary.BigEndian, uint32(maxMessage))
	begun.Write(make([]byte, 1000))
	if !closed(begun) {
		t.Error("a message begun and not finished did not end its connection")
	}

	var stalled []net.Conn
	for range maxConns {
		stalled = append(stalled, dial(t, filter))
	}
	// The filter has taken them all once one beyond answers nothing.
	beyond := dial(t, filter)
	writeMessage(beyond, []byte{requestIdentities})
	if !closed(beyond) {
		t.Error("a connection beyond the bound was served")
	}
	for _, c := range stalled {
		if !closed(c) {
			t.Error("a stalled connection was not ended")
		}
	}
	c := dial(t, filter)
	writeMessage(c, []byte{22})
	if answer, err := readMessage(c, 10*time.Second); err != nil || string(answer) != string(failure) {
		t.Errorf("after the stalled connections ended: %v, %v", answer, err)
	}
}

// BenchmarkFilterStalledMemory measures the heap the filter holds with
// ten times its bound of connections, each stalled halfway through a
// message of the largest size (the sandbox's attack on the supervisor's
// memory): reported as heap-MiB.
func BenchmarkFilterStalledMemory(b *testing.B) {
	dir := b.TempDir()
	sock := filepath.Join(dir, "filter.sock")
	for range b.N {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		f := Serve(ln, filepath.Join(dir, "none"), Rules{})
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var conns []net.Conn
		half := make([]byte, maxMessage/2)
		for range 10 * maxConns {
			c, err := net.Dial("unix", sock)
			if err != nil {
				b.Fatal(err)
			}
			binary.Write(c, binary.BigEndian, uint32(maxMessage))
			c.Write(half)
			conns = append(conns, c)
		}
		time.Sleep(200 * time.Millisecond)
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MiB")
		for _, c := range conns {
			c.Close()
		}
		if err := f.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			b.Fatal(err)
		}
		os.Remove(sock)
	}
}

// The filter signs only an SSH login as a user it may log in as (git by
// default), for the session its connection is bound to, and git's own
// signatures: a login as another user, one for a session not bound (a
// relay's, a server's the sandbox may not log in to), or a signature of
// another namespace could stand for the user elsewhere.
func TestSignable(t *testing.T) {
	field := func(b []byte, s string) []byte {
		return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
	}
	login := func(session, user, method string, hostKey string) []byte {
		b := append(field(nil, session), userauthRequest)
		b = field(field(field(b, user), "ssh-connection"), method)
		b = field(field(append(b, 1), "ssh-ed25519"), "key")
		if hostKey != "" {
			b = field(b, hostKey)
		}
		return b
	}
	sshsig := func(namespace string) []byte {
		return field(field(field(field([]byte("SSHSIG"), namespace), ""), "sha512"), "hash")
	}
	bound := &binding{hostKey: []byte("host-key"), sessionID: []byte("session-id")}
	for _, c := range []struct {
		what  string
		users []string
		bound *binding
		data  []byte
		want  bool
	}{
		{"a login as git", nil, bound, login("session-id", "git", "publickey", ""), true},
		{"a hostbound login as git", nil, bound, login("session-id", "git", hostboundMethod, "host-key"), true},
		{"a login as git, on a connection not bound", nil, nil, login("session-id", "git", "publickey", ""), false},
		{"a login as git, for another session", nil, bound, login("relayed-id", "git", "publickey", ""), false},
		{"a hostbound login as git, to another host", nil, bound, login("session-id", "git", hostboundMethod, "other-key"), false},
		{"a login as root", nil, bound, login("session-id", "root", "publickey", ""), false},
		{"a login as a user named", []string{"alice"}, bound, login("session-id", "alice", "publickey", ""), true},
		{"a login as git, when only alice is named", []string{"alice"}, bound, login("session-id", "git", "publickey", ""), false},
		{"a login with a byte more", nil, bound, append(login("session-id", "git", "publickey", ""), 0), false},
		{"a login by password", nil, bound, login("session-id", "git", "password", ""), false},
		{"git's signature", nil, nil, sshsig("git"), true},
		{"a file's signature", nil, nil, sshsig("file"), false},
		{"anything else", nil, bound, []byte("sign me"), false},
	} {
		f := &Filter{rules: Rules{Users: c.users}}
		if len(c.users) == 0 {
			f.rules.Users = []string{"git"}
		}
		if got := f.signable(c.data, c.bound); got != c.want {
			t.Errorf("%s: signable %v, want %v", c.what, got, c.want)
		}
	}
}

// TestCloseEndsRequestsToTheAgent: Close returns while a request passed
// on waits for the user's agent (one that asks the user to confirm), and
// ends the connection to it; it waited upstreamTimeout.
func TestCloseEndsRequestsToTheAgent(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	asked, ended := make(chan struct{}), make(chan struct{})
	go func() {
		c, err := agent.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		readMessage(c, time.Minute)
		close(asked)
		// It never answers, and reads on until the filter hangs up.
		c.SetReadDeadline(time.Time{})
		io.Copy(io.Discard, c)
		close(ended)
	}()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "filter.sock"))
	if err != nil {
		t.Fatal(err)
	}
	f := Serve(ln, sock, Rules{})
	c := dial(t, ln.Addr().String())
	if err := writeMessage(c, []byte{requestIdentities}); err != nil {
		t.Fatal(err)
	}
	<-asked
	closing := make(chan struct{})
	go func() { f.Close(); close(closing) }()
	select {
	case <-closing:
	case <-time.After(20 * time.Second):
		t.Fatal("Close waits for the user's agent to answer")
	}
	<-ended
}
