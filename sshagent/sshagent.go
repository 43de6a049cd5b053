// Package sshagent is the SSH agent a sandbox is given with --with-ssh: a
// filter the supervisor serves on a socket of its own, in front of the
// user's agent, that passes on only listing the keys, binding a
// connection to a server's session (OpenSSH's session-bind, checked
// first) and signing. Adding, removing and locking keys and every other
// extension are answered with a failure and never reach the user's agent.
// The protocol (draft-miller-ssh-agent, OpenSSH's PROTOCOL.agent) is read
// by hand: each message a uint32 length and that many bytes, the first its
// type; each request answered before the next is read.
package sshagent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"time"

	"github.com/claudebox/claudebox/connserve"
)

// The message types the filter reads or writes.
const (
	agentFailure      = 5
	requestIdentities = 11
	identitiesAnswer  = 12
	signRequest       = 13
	signResponse      = 14
	agentSuccess      = 6
	extension         = 27
)

// sessionBind is OpenSSH's extension by which ssh tells the agent the
// server's host key, the session's id and the server's signature of it.
const sessionBind = "session-bind@openssh.com"

// maxMessage is OpenSSH's own bound on an agent message (AGENT_MAX_LEN),
// requests and answers alike.
const maxMessage = 256 << 10

// maxConns bounds the connections served at once: with one request read
// and one answer held each, the filter's memory stays under 2 ×
// maxMessage × maxConns (8 MiB) whatever the sandbox does. A connection
// beyond it is closed at once; a sandbox that holds them all stalls only
// its own agent, until idleTimeout.
const maxConns = 16

// The deadlines that keep a stalled peer from holding a connection:
// messageTimeout for the rest of a message once its length has come, and
// for each answer written; idleTimeout between requests (ssh holds its
// connection while it authenticates); upstreamTimeout for the user's
// agent to answer (one that asks the user to confirm each use waits for
// them).
var (
	messageTimeout  = 10 * time.Second
	idleTimeout     = 5 * time.Minute
	upstreamTimeout = 2 * time.Minute
)

var failure = []byte{agentFailure}

// Rules are what the filter lets the sandbox do with the user's keys.
type Rules struct {
	// Keys are the fingerprints (SHA256:…, as ssh-add -l shows them; a
	// certificate's is its key's) of the keys it may use; none: all.
	Keys []string
	// Users are the users it may log in as; none: the git hosts' git.
	Users []string
	// HostKeys are the host keys (wire form) of the servers it may log in
	// to: a login is signed only for a session such a server signed.
	HostKeys [][]byte
}

// Filter serves the filtered agent on a listener.
type Filter struct {
	upstream string
	rules    Rules
	server   *connserve.Server
	// closing ends, at Close, every connection to the user's agent: a
	// request waiting there for the user to confirm a use (ssh-add -c) or
	// touch a token held Close, and the session's end, for
	// upstreamTimeout.
	closing context.Context
	close   context.CancelFunc
}

// Serve serves the filter on ln, in front of the user's agent listening on
// the Unix socket upstream, as rules say. It returns at once; Close stops
// it.
func Serve(ln net.Listener, upstream string, rules Rules) *Filter {
	if len(rules.Users) == 0 {
		rules.Users = []string{"git"}
	}
	f := &Filter{upstream: upstream, rules: rules}
	f.closing, f.close = context.WithCancel(context.Background())
	f.server = connserve.Serve(ln, maxConns, f.serve)
	return f
}

// binding is the session a connection is bound to: the server's host key
// and the session's id, which the server signed.
type binding struct {
	hostKey, sessionID []byte
}

// Close stops accepting, ends the connections being served and those to
// the user's agent, and waits for them.
func (f *Filter) Close() error {
	f.close()
	return f.server.Close()
}

// agentConn is a connection to the user's agent, which the filter's
// Close ends too.
type agentConn struct {
	net.Conn
	stop func() bool
}

func (c *agentConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

// serve answers c's requests in turn, through a connection of its own to
// the user's agent, made at the first request passed on (the agent keeps
// state per connection: a session bound to it, a failed attempt).
func (f *Filter) serve(c net.Conn) {
	var up net.Conn
	var bound *binding
	defer func() {
		if up != nil {
			up.Close()
		}
	}()
	for {
		req, err := readMessage(c, idleTimeout)
		if err != nil {
			return
		}
		answer := f.answer(req, &up, &bound)
		c.SetWriteDeadline(time.Now().Add(messageTimeout))
		if writeMessage(c, answer) != nil {
			return
		}
	}
}

// answer is the filter's answer to req: the user's agent's, for listing
// (with the keys not allowed left out) and for signing with an allowed
// key; success for binding the connection to a server's session it may
// log in to (passed on too, for the user's agent's own restrictions); a
// failure for anything else.
func (f *Filter) answer(req []byte, up *net.Conn, bound **binding) []byte {
	switch req[0] {
	case requestIdentities:
		if len(req) != 1 {
			return failure
		}
		reply := f.forward(req, up)
		if reply[0] != identitiesAnswer {
			return failure
		}
		return f.allowedIdentities(reply)
	case signRequest:
		r := reader{b: req[1:]}
		key := r.str()
		data := r.str()
		r.uint32()
		if !r.done() || !f.allows(key) || !f.signable(data, *bound) {
			return failure
		}
		reply := f.forward(req, up)
		s := reader{b: reply[1:]}
		s.str()
		if reply[0] != signResponse || !s.done() {
			return failure
		}
		return reply
	case extension:
		b, ok := f.bind(req[1:], *bound)
		if !ok {
			return failure
		}
		*bound = b
		f.forward(req, up)
		return []byte{agentSuccess}
	}
	return failure
}

// bind reads a session-bind request: a connection bound for logging in
// (not for forwarding the agent), once, to a session the server signed
// with a host key the sandbox may log in with. ssh binds before it asks
// for a login's signature; a session the sandbox relays for a server
// elsewhere is signed by that server's key. Binding again to the session
// already bound is allowed, as OpenSSH's agent allows it.
func (f *Filter) bind(ext []byte, bound *binding) (*binding, bool) {
	r := reader{b: ext}
	name := r.str()
	hostKey, sessionID, signature := r.str(), r.str(), r.str()
	forwarding := r.byte()
	if !r.done() || string(name) != sessionBind || forwarding != 0 {
		return nil, false
	}
	if bound != nil {
		return bound, bytes.Equal(bound.hostKey, hostKey) && bytes.Equal(bound.sessionID, sessionID)
	}
	if !slices.ContainsFunc(f.rules.HostKeys, func(k []byte) bool { return bytes.Equal(k, hostKey) }) || !verify(hostKey, sessionID, signature) {
		return nil, false
	}
	return &binding{hostKey: bytes.Clone(hostKey), sessionID: bytes.Clone(sessionID)}, true
}

// forward passes req to the user's agent and returns its answer, or a
// failure when the agent cannot be reached or answers nothing readable
// in time.
func (f *Filter) forward(req []byte, up *net.Conn) []byte {
	if *up == nil {
		c, err := net.DialTimeout("unix", f.upstream, messageTimeout)
		if err != nil {
			return failure
		}
		*up = &agentConn{Conn: c, stop: context.AfterFunc(f.closing, func() { c.Close() })}
	}
	(*up).SetWriteDeadline(time.Now().Add(messageTimeout))
	err := writeMessage(*up, req)
	var reply []byte
	if err == nil {
		reply, err = readMessage(*up, upstreamTimeout)
	}
	if err != nil {
		(*up).Close()
		*up = nil
		return failure
	}
	return reply
}

// allowedIdentities is the answer to a listing with the keys not allowed
// left out, or a failure when the user's agent's answer does not read as
// one.
func (f *Filter) allowedIdentities(reply []byte) []byte {
	r := reader{b: reply[1:]}
	n := r.uint32()
	out := []byte{identitiesAnswer, 0, 0, 0, 0}
	kept := uint32(0)
	for i := uint32(0); i < n && r.ok(); i++ {
		key, comment := r.str(), r.str()
		if r.ok() && f.allows(key) {
			out = appendString(appendString(out, key), comment)
			kept++
		}
	}
	if !r.done() {
		return failure
	}
	binary.BigEndian.PutUint32(out[1:5], kept)
	return out
}

// signable says the sandbox may have data signed: an SSH login (a
// public key user authentication request) as one of the users it may log
// in as, for the session the connection is bound to, or a signature of
// git's (SSHSIG, namespace git: a commit's, a tag's, a signed push's).
// Anything else would stand for the user where the sandbox cannot reach:
// a login relayed from another's session, to a server that trusts the
// key; a signature of another namespace.
func (f *Filter) signable(data []byte, bound *binding) bool {
	if rest, ok := bytes.CutPrefix(data, []byte("SSHSIG")); ok {
		r := reader{b: rest}
		namespace := r.str()
		r.str() // reserved
		r.str() // the hash's algorithm
		r.str() // the message's hash
		return r.done() && string(namespace) == "git"
	}
	r := reader{b: data}
	sessionID := r.str()
	request := r.byte()
	user, service, method := r.str(), r.str(), r.str()
	signed := r.byte()
	r.str() // the algorithm
	r.str() // the key
	hostbound := string(method) == hostboundMethod
	var hostKey []byte
	if hostbound {
		hostKey = r.str()
	}
	return r.done() && request == userauthRequest && string(service) == "ssh-connection" &&
		(string(method) == "publickey" || hostbound) && signed == 1 && slices.Contains(f.rules.Users, string(user)) &&
		bound != nil && bytes.Equal(sessionID, bound.sessionID) && (!hostbound || bytes.Equal(hostKey, bound.hostKey))
}

// An SSH login's request (RFC 4252), as the client has the agent sign it;
// OpenSSH's hostbound method adds the server's host key.
const (
	userauthRequest = 50
	hostboundMethod = "publickey-hostbound-v00@openssh.com"
)

// allows says the key (its wire form) is one the sandbox may use.
func (f *Filter) allows(key []byte) bool {
	return len(f.rules.Keys) == 0 || slices.Contains(f.rules.Keys, Fingerprint(key))
}

// Fingerprint is a key's SHA-256 fingerprint as ssh-add -l shows it, from
// its wire form; a certificate's is that of the key it certifies.
func Fingerprint(key []byte) string {
	sum := sha256.Sum256(plainKey(key))
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// certificates are OpenSSH's certificate types, each with its key's type
// and how many of the fields after the nonce are the key's.
var certificates = map[string]struct {
	key    string
	fields int
}{
	"ssh-rsa-cert-v01@openssh.com":                {"ssh-rsa", 2},
	"ssh-dss-cert-v01@openssh.com":                {"ssh-dss", 4},
	"ecdsa-sha2-nistp256-cert-v01@openssh.com":    {"ecdsa-sha2-nistp256", 2},
	"ecdsa-sha2-nistp384-cert-v01@openssh.com":    {"ecdsa-sha2-nistp384", 2},
	"ecdsa-sha2-nistp521-cert-v01@openssh.com":    {"ecdsa-sha2-nistp521", 2},
	"ssh-ed25519-cert-v01@openssh.com":            {"ssh-ed25519", 1},
	"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com": {"sk-ecdsa-sha2-nistp256@openssh.com", 3},
	"sk-ssh-ed25519-cert-v01@openssh.com":         {"sk-ssh-ed25519@openssh.com", 2},
}

// plainKey is the key a certificate certifies, in wire form, as OpenSSH
// takes its fingerprint; any other key as it is.
func plainKey(key []byte) []byte {
	r := reader{b: key}
	cert, ok := certificates[string(r.str())]
	if !ok {
		return key
	}
	r.str() // the nonce
	plain := appendString(nil, []byte(cert.key))
	for range cert.fields {
		plain = appendString(plain, r.str())
	}
	if !r.ok() {
		return key
	}
	return plain
}

// readMessage reads one message from c: its length within first, the rest
// within messageTimeout. A message that is empty or longer than
// maxMessage ends the connection, as OpenSSH's agent does.
func readMessage(c net.Conn, first time.Duration) ([]byte, error) {
	c.SetReadDeadline(time.Now().Add(first))
	var length [4]byte
	if _, err := io.ReadFull(c, length[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(length[:])
	if n == 0 || n > maxMessage {
		return nil, errors.New("agent message length out of bounds")
	}
	c.SetReadDeadline(time.Now().Add(messageTimeout))
	msg := make([]byte, n)
	if _, err := io.ReadFull(c, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func writeMessage(c net.Conn, msg []byte) error {
	_, err := c.Write(appendString(make([]byte, 0, 4+len(msg)), msg))
	return err
}

// appendString appends s as the protocol's string: its length, then it.
func appendString(b, s []byte) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// reader reads a message's fields; once a field runs past the end, every
// later read gives nothing and ok says false.
type reader struct {
	b      []byte
	broken bool
}

func (r *reader) uint32() uint32 {
	if r.broken || len(r.b) < 4 {
		r.broken = true
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *reader) str() []byte {
	n := r.uint32()
	if r.broken || uint64(n) > uint64(len(r.b)) {
		r.broken = true
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) byte() byte {
	if r.broken || len(r.b) < 1 {
		r.broken = true
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) ok() bool { return !r.broken }

// done says every field read was there and nothing follows them.
func (r *reader) done() bool { return !r.broken && len(r.b) == 0 }
