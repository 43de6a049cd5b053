// Package gpgagent is the gpg-agent a sandbox is given with --with-gpg: a
// filter the supervisor serves on a socket of its own, in front of the
// agent's restricted (extra) socket, that passes on only the commands a
// signature needs (git commit -S, gpg --sign). The restricted socket
// itself also decrypts: with it, whatever was encrypted to the user's key
// (a repository's secrets, a password store's entry) was readable inside.
// The protocol (Assuan) is read by hand: lines of at most 1000 bytes, each
// a command the client sends and the agent answers, or data the agent
// asked for (INQUIRE) that the client sends back.
//
// A signature is made only with a key the user's keyring says signs: the
// agent signs a hash with any key it holds, and where it is the user's SSH
// agent (enable-ssh-support) those include the keys for logins (an
// authentication subkey, a key ssh-add put there), whose RSA signature of
// a SHA-256 hash is an SSH login's.
package gpgagent

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/claudebox/claudebox/connserve"
)

// signing are the commands gpg sends its agent to sign (gpg 2.2 to 2.4,
// measured with git commit -S): its options, what it asks of the agent
// and its keys, the key and hash to sign, the signature; and the data
// lines that answer the agent's questions. Any other (PKDECRYPT, SCD,
// GENKEY, IMPORT_KEY, EXPORT_KEY, PRESET_PASSPHRASE, …) is answered
// with an error and never reaches the agent.
var signing = map[string]bool{
	"OPTION": true, "RESET": true, "GETINFO": true, "NOP": true, "BYE": true, "GETEVENTCOUNTER": true,
	"HAVEKEY": true, "KEYINFO": true, "READKEY": true,
	"SIGKEY": true, "SETKEYDESC": true, "SETHASH": true, "PKSIGN": true,
	"D": true, "END": true, "CAN": true,
}

// refused is the answer to a command not passed on: GPG_ERR_NOT_SUPPORTED
// from the agent (source 4), as gpg reads it.
const refused = "ERR 67108924 Not supported <GPG Agent>\n"

// maxLine is Assuan's bound on a line (ASSUAN_LINELENGTH), its newline
// included.
const maxLine = 1002

// maxConns bounds the connections served at once; idleTimeout ends one
// whose client sends nothing (the agent may wait on its user's pinentry
// for as long as it takes).
const (
	maxConns    = 16
	idleTimeout = 10 * time.Minute
)

// Filter serves the filtered agent on a listener.
type Filter struct {
	upstream string
	// signers are the keygrips, in upper case, of the keys SIGKEY may
	// name.
	signers map[string]bool
	server  *connserve.Server
}

// Serve serves the filter on ln, in front of the agent's restricted
// socket upstream, signing only with the keys whose keygrips signers
// lists (SigningKeys). It returns at once; Close stops it.
func Serve(ln net.Listener, upstream string, signers []string) *Filter {
	f := &Filter{upstream: upstream, signers: map[string]bool{}}
	for _, g := range signers {
		f.signers[strings.ToUpper(g)] = true
	}
	f.server = connserve.Serve(ln, maxConns, f.serve)
	return f
}

// Close stops accepting, ends the connections being served and waits for
// them.
func (f *Filter) Close() error { return f.server.Close() }

// serve joins the client c to the agent: the agent's lines go to the
// client as they are; the client's go to the agent when they are a
// command of signing, and are answered with an error otherwise.
func (f *Filter) serve(c net.Conn) {
	up, err := net.Dial("unix", f.upstream)
	if err != nil {
		return
	}
	defer up.Close()
	var writing sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := up.Read(buf)
			if n > 0 {
				writing.Lock()
				_, werr := c.Write(buf[:n])
				writing.Unlock()
				if werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		c.Close()
	}()
	r := bufio.NewReaderSize(c, maxLine)
	for {
		c.SetReadDeadline(time.Now().Add(idleTimeout))
		line, err := r.ReadSlice('\n')
		if err != nil {
			// A line past Assuan's bound, or the client gone.
			break
		}
		if f.passes(line) {
			if _, err := up.Write(line); err != nil {
				break
			}
			continue
		}
		writing.Lock()
		_, err = io.WriteString(c, refused)
		writing.Unlock()
		if err != nil {
			break
		}
	}
	up.Close()
	<-done
}

// passes says the client's line goes on to the agent: a command of
// signing, and of SIGKEY only the keys that sign.
func (f *Filter) passes(line []byte) bool {
	v := verb(line)
	if !signing[v] {
		return false
	}
	return v != "SIGKEY" || f.signers[keygrip(line)]
}

// keygrip is the key a SIGKEY line names, in upper case, as the agent
// reads it: the hexadecimal digits after the command and its spaces.
func keygrip(line []byte) string {
	arg := bytes.TrimLeft(line[len("SIGKEY"):], " \t")
	n := 0
	for n < len(arg) && isHex(arg[n]) {
		n++
	}
	return strings.ToUpper(string(arg[:n]))
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// SigningKeys are the keygrips of the keys that only sign, in gpg's
// listing of the user's secret keys (gpg --with-colons --with-keygrip
// --list-secret-keys): each key or subkey whose own capabilities (the
// lower-case letters of its twelfth field) hold s and neither a nor c,
// and that logins does not name. A key for logins (a), for encryption
// (e), or that gpg-agent serves as an SSH key signs nothing: an RSA
// key's signature of a SHA-256 hash is an SSH login's. Nor does a key
// that certifies (c, every primary key): the agent sees only the hash,
// and a certification is a hash's signature too, of a user ID or of a
// subkey the sandbox made, bound to the user's key, which a keyserver
// takes from anyone and which signs as the user after the session.
// alsoLogIn are the keys that sign but are left out for logging in too,
// alsoCertify those left out for certifying.
func SigningKeys(listing string, logins map[string]bool) (signers, alsoLogIn, alsoCertify []string) {
	signs, logsIn, certifies := false, false, false
	for _, line := range strings.Split(listing, "\n") {
		f := strings.Split(line, ":")
		switch f[0] {
		case "sec", "ssb":
			signs = len(f) > 11 && strings.Contains(f[11], "s")
			logsIn = len(f) > 11 && strings.Contains(f[11], "a")
			certifies = len(f) > 11 && strings.Contains(f[11], "c")
		case "grp":
			switch {
			case !signs || len(f) <= 9 || f[9] == "":
			case logsIn || logins[strings.ToUpper(f[9])]:
				alsoLogIn = append(alsoLogIn, f[9])
			case certifies:
				alsoCertify = append(alsoCertify, f[9])
			default:
				signers = append(signers, f[9])
			}
			signs = false
		}
	}
	return signers, alsoLogIn, alsoCertify
}

// SSHControlKeys are the keygrips, in upper case, that gpg-agent's
// sshcontrol file lists: the keys it serves as SSH keys (with
// enable-ssh-support), those turned off with ! too, which a line's edit
// turns on again.
func SSHControlKeys(sshcontrol []byte) map[string]bool {
	grips := map[string]bool{}
	for _, line := range strings.Split(string(sshcontrol), "\n") {
		line = strings.TrimLeft(strings.TrimSpace(line), "!")
		n := 0
		for n < len(line) && isHex(line[n]) {
			n++
		}
		if n == 40 {
			grips[strings.ToUpper(line[:n])] = true
		}
	}
	return grips
}

// UsedForSSH says a key's file in private-keys-v1.d (GnuPG's extended
// format: Name: value lines) names it for SSH: a Use-for-ssh attribute,
// whatever its value, which gpg-agent 2.4 reads as sshcontrol's entry.
func UsedForSSH(keyFile []byte) bool {
	for _, line := range strings.Split(string(keyFile), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Use-for-ssh") {
			return true
		}
	}
	return false
}

// verb is a line's command, as the agent reads it: its first word, in
// any case.
func verb(line []byte) string {
	line = bytes.TrimRight(line, "\r\n")
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		line = line[:i]
	}
	return string(bytes.ToUpper(line))
}
