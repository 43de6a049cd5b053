package sshagent

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"math/big"
	"net"
	"slices"
	"strings"
)

// KnownHostKeys are the host keys (wire form) that known_hosts files
// (OpenSSH's format: ~/.ssh/known_hosts, /etc/ssh/ssh_known_hosts) list
// for the destinations, each host:port as the allow list names it: a
// line whose names include one (written plain, or hashed as
// HashKnownHosts writes it), not negated by another of its patterns. A
// wildcard pattern matches nothing (the agent signs for the servers named,
// not for a pattern's), a certificate authority's line neither (a host
// certificate is not followed), and a key a @revoked line names is left
// out.
func KnownHostKeys(files [][]byte, destinations []string) [][]byte {
	var names []string
	for _, d := range destinations {
		host, port, err := net.SplitHostPort(d)
		if err != nil {
			continue
		}
		name := strings.ToLower(host)
		if port != "22" {
			name = "[" + name + "]:" + port
		}
		names = append(names, name)
	}
	var keys, revoked [][]byte
	for _, file := range files {
		for line := range strings.Lines(string(file)) {
			fields := strings.Fields(line)
			if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			marker := ""
			if strings.HasPrefix(fields[0], "@") {
				marker, fields = fields[0], fields[1:]
			}
			if len(fields) < 3 {
				continue
			}
			key, err := base64.StdEncoding.DecodeString(fields[2])
			r := reader{b: key}
			if err != nil || string(r.str()) != fields[1] {
				continue
			}
			switch {
			case marker == "@revoked":
				revoked = append(revoked, key)
			case marker == "" && slices.ContainsFunc(names, func(n string) bool { return namesHost(fields[0], n) }):
				keys = append(keys, key)
			}
		}
	}
	return slices.DeleteFunc(keys, func(k []byte) bool {
		return slices.ContainsFunc(revoked, func(r []byte) bool { return bytes.Equal(k, r) })
	})
}

// namesHost says a known_hosts line's names (patterns, comma-separated,
// or one hashed name) include name, as ssh looks it up.
func namesHost(patterns, name string) bool {
	if rest, ok := strings.CutPrefix(patterns, "|1|"); ok {
		salt64, hash64, ok := strings.Cut(rest, "|")
		salt, err1 := base64.StdEncoding.DecodeString(salt64)
		hash, err2 := base64.StdEncoding.DecodeString(hash64)
		if !ok || err1 != nil || err2 != nil {
			return false
		}
		mac := hmac.New(sha1.New, salt)
		mac.Write([]byte(name))
		return hmac.Equal(mac.Sum(nil), hash)
	}
	found := false
	for p := range strings.SplitSeq(strings.ToLower(patterns), ",") {
		negated := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		switch {
		case negated && (p == name || strings.ContainsAny(p, "*?")):
			return false
		case p == name:
			found = true
		}
	}
	return found
}

// verify says signature (the SSH wire form: its algorithm, then the
// signature) is hostKey's of data, as a server signs its session's id:
// Ed25519, ECDSA on NIST P-256, P-384 and P-521, RSA with SHA-2.
func verify(hostKey, data, signature []byte) bool {
	k := reader{b: hostKey}
	keyType := string(k.str())
	s := reader{b: signature}
	algorithm, sig := string(s.str()), s.str()
	if !s.done() {
		return false
	}
	switch keyType {
	case "ssh-ed25519":
		pub := k.str()
		return k.done() && algorithm == keyType && len(pub) == ed25519.PublicKeySize &&
			len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, data, sig)
	case "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521":
		curves := map[string]struct {
			curve elliptic.Curve
			hash  crypto.Hash
		}{
			"nistp256": {elliptic.P256(), crypto.SHA256},
			"nistp384": {elliptic.P384(), crypto.SHA384},
			"nistp521": {elliptic.P521(), crypto.SHA512},
		}
		curveName, point := string(k.str()), k.str()
		c, known := curves[curveName]
		if !k.done() || !known || keyType != "ecdsa-sha2-"+curveName || algorithm != keyType {
			return false
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(c.curve, point)
		rs := reader{b: sig}
		r, ok1 := mpint(rs.str())
		sv, ok2 := mpint(rs.str())
		if err != nil || !ok1 || !ok2 || !rs.done() {
			return false
		}
		return ecdsa.Verify(pub, digest(c.hash, data), r, sv)
	case "ssh-rsa":
		e, ok1 := mpint(k.str())
		n, ok2 := mpint(k.str())
		hashes := map[string]crypto.Hash{"rsa-sha2-256": crypto.SHA256, "rsa-sha2-512": crypto.SHA512}
		h, known := hashes[algorithm]
		if !k.done() || !ok1 || !ok2 || !known || !e.IsInt64() || e.Int64() > 1<<31-1 {
			return false
		}
		pub := &rsa.PublicKey{N: n, E: int(e.Int64())}
		return rsa.VerifyPKCS1v15(pub, h, digest(h, data), sig) == nil
	}
	return false
}

// mpint reads the protocol's non-negative mpint (RFC 4251).
func mpint(b []byte) (*big.Int, bool) {
	if len(b) > 0 && b[0]&0x80 != 0 {
		return nil, false
	}
	return new(big.Int).SetBytes(b), true
}

func digest(h crypto.Hash, data []byte) []byte {
	switch h {
	case crypto.SHA256:
		sum := sha256.Sum256(data)
		return sum[:]
	case crypto.SHA384:
		sum := sha512.Sum384(data)
		return sum[:]
	default:
		sum := sha512.Sum512(data)
		return sum[:]
	}
}
