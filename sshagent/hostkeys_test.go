package sshagent

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"encoding/base64"
	"math/big"
	"slices"
	"testing"
)

// hostKey is a server's host key made for a test: its wire form and how
// it signs a session's id.
type hostKey struct {
	name string
	wire []byte
	sign func(data []byte) []byte
}

func mpintBytes(n *big.Int) []byte {
	b := n.Bytes()
	if len(b) > 0 && b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	return b
}

func hostKeys(t *testing.T) []hostKey {
	t.Helper()
	str := func(b []byte, s []byte) []byte { return appendString(b, s) }
	var keys []hostKey
	edPub, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, hostKey{"ed25519", str(str(nil, []byte("ssh-ed25519")), edPub), func(data []byte) []byte {
		return str(str(nil, []byte("ssh-ed25519")), ed25519.Sign(edPriv, data))
	}})
	for _, c := range []struct {
		name  string
		curve elliptic.Curve
		hash  crypto.Hash
	}{{"nistp256", elliptic.P256(), crypto.SHA256}, {"nistp384", elliptic.P384(), crypto.SHA384}, {"nistp521", elliptic.P521(), crypto.SHA512}} {
		priv, err := ecdsa.GenerateKey(c.curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		point, err := priv.PublicKey.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		typ := []byte("ecdsa-sha2-" + c.name)
		keys = append(keys, hostKey{"ecdsa " + c.name, str(str(str(nil, typ), []byte(c.name)), point), func(data []byte) []byte {
			r, s, err := ecdsa.Sign(rand.Reader, priv, digest(c.hash, data))
			if err != nil {
				t.Fatal(err)
			}
			return str(str(nil, typ), str(str(nil, mpintBytes(r)), mpintBytes(s)))
		}})
	}
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaWire := str(str(str(nil, []byte("ssh-rsa")), mpintBytes(big.NewInt(int64(priv.E)))), mpintBytes(priv.N))
	for _, alg := range []struct {
		name string
		hash crypto.Hash
	}{{"rsa-sha2-256", crypto.SHA256}, {"rsa-sha2-512", crypto.SHA512}} {
		keys = append(keys, hostKey{alg.name, rsaWire, func(data []byte) []byte {
			sig, err := rsa.SignPKCS1v15(rand.Reader, priv, alg.hash, digest(alg.hash, data))
			if err != nil {
				t.Fatal(err)
			}
			return str(str(nil, []byte(alg.name)), sig)
		}})
	}
	return keys
}

// sessionBindRequest is ssh's session-bind extension, after its type.
func sessionBindRequest(hostKey, sessionID, signature []byte, forwarding byte) []byte {
	b := appendString(nil, []byte(sessionBind))
	b = appendString(appendString(appendString(b, hostKey), sessionID), signature)
	return append(b, forwarding)
}

// TestBind: the filter binds a connection to a session only when the
// server's signature of the session's id verifies with a host key the
// sandbox may log in with (Ed25519, ECDSA, RSA with SHA-2), for logging
// in (not forwarding the agent), once. A session relayed from a server
// elsewhere carries that server's key; one that names an allowed key
// cannot carry its signature.
func TestBind(t *testing.T) {
	keys := hostKeys(t)
	other := hostKeys(t)[0]
	session := []byte("the exchange hash of the session")
	for _, k := range keys {
		f := &Filter{rules: Rules{HostKeys: [][]byte{k.wire}}}
		good := k.sign(session)
		b, ok := f.bind(sessionBindRequest(k.wire, session, good, 0), nil)
		if !ok || string(b.sessionID) != string(session) || string(b.hostKey) != string(k.wire) {
			t.Errorf("%s: a session the allowed server signed is not bound", k.name)
			continue
		}
		if _, ok := f.bind(sessionBindRequest(k.wire, session, good, 0), b); !ok {
			t.Errorf("%s: binding again to the same session is refused", k.name)
		}
		for what, req := range map[string][]byte{
			"a session signed by a server not allowed": sessionBindRequest(other.wire, session, other.sign(session), 0),
			"another session's signature":              sessionBindRequest(k.wire, []byte("a relayed session"), good, 0),
			"a signature of another algorithm":         sessionBindRequest(k.wire, session, other.sign(session), 0),
			"a binding for forwarding":                 sessionBindRequest(k.wire, session, good, 1),
			"a binding with a byte more":               append(sessionBindRequest(k.wire, session, good, 0), 0),
		} {
			if _, ok := f.bind(req, nil); ok {
				t.Errorf("%s: bound %s", k.name, what)
			}
		}
		if _, ok := f.bind(sessionBindRequest(k.wire, []byte("another"), k.sign([]byte("another")), 0), b); ok {
			t.Errorf("%s: a connection bound to a session was bound again to another", k.name)
		}
	}
}

// TestKnownHostKeys: the host keys known_hosts lists for the allow list's
// servers, by name, as [host]:port, hashed; not a wildcard's, not one
// negated, not a certificate authority's, not one revoked.
func TestKnownHostKeys(t *testing.T) {
	keys := append(hostKeys(t)[:4], hostKeys(t)[:3]...)
	line := func(names string, k hostKey) string {
		r := reader{b: k.wire}
		return names + " " + string(r.str()) + " " + base64.StdEncoding.EncodeToString(k.wire) + " comment\n"
	}
	hashed := func(name string) string {
		salt := []byte("0123456789abcdefghij")
		mac := hmac.New(sha1.New, salt)
		mac.Write([]byte(name))
		return "|1|" + base64.StdEncoding.EncodeToString(salt) + "|" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	}
	user := line("GitHub.com,140.82.121.4", keys[0]) +
		line("[127.0.0.1]:2222", keys[1]) +
		line(hashed("git.example.com"), keys[2]) +
		line("*.example.org", keys[3]) +
		line("other.example.com", keys[4]) +
		line("host.example.net,!host.example.net", keys[5]) +
		"# a comment\n\n" +
		"@cert-authority " + line("gitlab.com", keys[6])
	system := line("revoked.example.com", keys[6]) + "@revoked " + line("*", keys[6])
	got := KnownHostKeys([][]byte{[]byte(user), []byte(system)}, []string{"github.com:22", "127.0.0.1:2222", "git.example.com:22", "x.example.org:22", "host.example.net:22", "gitlab.com:22", "revoked.example.com:22", "127.0.0.1:22"})
	want := [][]byte{keys[0].wire, keys[1].wire, keys[2].wire}
	if !slices.EqualFunc(got, want, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("got %d keys, want those of github.com, [127.0.0.1]:2222 and the hashed git.example.com (%d)", len(got), len(want))
	}
}
