package gpgagent

import (
	"bufio"
	"maps"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A fake agent on a Unix socket: it greets, answers every line OK and
// records them.
func fakeAgent(t *testing.T) (sock string, got func() []string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "agent")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var lines []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("OK Pleased to meet you\n"))
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					mu.Lock()
					lines = append(lines, strings.TrimSpace(line))
					mu.Unlock()
					c.Write([]byte("OK\n"))
				}
			}()
		}
	}()
	return sock, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), lines...) }
}

// The filter passes on what signing needs and answers anything else
// (decrypting, the smartcard daemon, a key's import or export, in any
// case, a key that does not sign) with an error, never reaching the
// agent.
func TestFilterPassesSigningOnly(t *testing.T) {
	upstream, got := fakeAgent(t)
	sock := filepath.Join(t.TempDir(), "filter")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	const signer, login = "0123456789ABCDEF0123456789ABCDEF01234567", "89ABCDEF0123456789ABCDEF0123456789ABCDEF"
	f := Serve(ln, upstream, []string{signer})
	defer f.Close()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if greeting, _ := r.ReadString('\n'); !strings.HasPrefix(greeting, "OK") {
		t.Fatalf("greeting %q", greeting)
	}
	for _, line := range []string{
		"OPTION ttyname=/dev/pts/1", "SIGKEY " + signer, "sigkey  " + strings.ToLower(signer), "SIGKEY " + login,
		"SIGKEY " + signer[:39], "SIGKEY", "SETHASH 10 ABCD", "PKSIGN", "pkdecrypt", "SETKEY " + signer,
		"PKDECRYPT", "SCD SERIALNO", "EXPORT_KEY 0123", "IMPORT_KEY", "PRESET_PASSPHRASE x -1 41", "BYE",
	} {
		c.Write([]byte(line + "\n"))
		answer, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if want := f.passes([]byte(line)); strings.HasPrefix(answer, "OK") != want {
			t.Errorf("%s: answered %q", line, answer)
		}
	}
	passed := strings.Join(got(), "\n")
	if want := "OPTION ttyname=/dev/pts/1\nSIGKEY " + signer + "\nsigkey  " + strings.ToLower(signer) + "\nSETHASH 10 ABCD\nPKSIGN\nBYE"; passed != want {
		t.Errorf("the agent got:\n%s\nwant:\n%s", passed, want)
	}
}

// Of gpg's listing, only the keys that sign themselves and are no key for
// logins: not the authentication subkey (an SSH login's key), nor a key
// that both signs and authenticates, nor one sshcontrol lists, nor the
// one that encrypts, nor a primary that only certifies, whatever its
// subkeys may, nor a key that signs and certifies (a primary's sc).
func TestSigningKeys(t *testing.T) {
	listing := `sec:u:255:22:AAAA:1:::u:::cSC:::+:::ed25519:::0:
fpr:::::::::FPR1:
grp:::::::::GRIPPRIMARY:
uid:u::::1::X::Alice <alice@example.com>::::::::::0:
ssb:u:255:22:BBBB:1::::::s:::+:::ed25519::
fpr:::::::::FPR2:
grp:::::::::GRIPSIGN:
ssb:u:2048:1:CCCC:1::::::a:::+:::::
fpr:::::::::FPR3:
grp:::::::::GRIPAUTH:
ssb:u:255:18:DDDD:1::::::e:::+:::cv25519::
fpr:::::::::FPR4:
grp:::::::::GRIPENCR:
sec:u:255:22:EEEE:1:::u:::scaESCA:::+:::ed25519:::0:
fpr:::::::::FPR5:
grp:::::::::GRIPBOTH:
ssb:u:2048:1:FFFF:1::::::s:::+:::::
fpr:::::::::FPR6:
grp:::::::::GRIPLISTED:
sec:u:255:22:GGGG:1:::u:::scSC:::+:::ed25519:::0:
fpr:::::::::FPR7:
grp:::::::::GRIPSCPRIMARY:
ssb:u:255:22:HHHH:1::::::sc:::+:::ed25519::
fpr:::::::::FPR8:
grp:::::::::GRIPSCSUB:
`
	signers, alsoLogIn, alsoCertify := SigningKeys(listing, map[string]bool{"GRIPLISTED": true})
	if got, want := strings.Join(signers, " "), "GRIPSIGN"; got != want {
		t.Errorf("SigningKeys = %s, want %s", got, want)
	}
	if got, want := strings.Join(alsoLogIn, " "), "GRIPBOTH GRIPLISTED"; got != want {
		t.Errorf("SigningKeys left out %s, want %s", got, want)
	}
	if got, want := strings.Join(alsoCertify, " "), "GRIPSCPRIMARY GRIPSCSUB"; got != want {
		t.Errorf("SigningKeys left out for certifying %s, want %s", got, want)
	}
}

// sshcontrol's keygrips, turned off or not, in any case; not a comment,
// nor what is no keygrip.
func TestSSHControlKeys(t *testing.T) {
	grip := strings.Repeat("ab", 20)
	got := SSHControlKeys([]byte("# " + strings.Repeat("11", 20) + "\n" + grip + " 0\n  !" + strings.Repeat("CD", 20) + " 600 confirm\n" + strings.Repeat("ef", 19) + "\n"))
	want := map[string]bool{strings.ToUpper(grip): true, strings.Repeat("CD", 20): true}
	if !maps.Equal(got, want) {
		t.Errorf("SSHControlKeys = %v, want %v", got, want)
	}
}

// A key file with a Use-for-ssh attribute, whatever its value, is an SSH
// key; one without is not.
func TestUsedForSSH(t *testing.T) {
	for file, want := range map[string]bool{
		"Created: 20261129T000000\nKey: (private-key\n (rsa\n  (n #00#)))\nUse-for-ssh: yes\n": true,
		"use-for-ssh: 2\nKey: (private-key)\n":                                                 true,
		"Created: 20261129T000000\nKey: (private-key)\n":                                       false,
		"(11:private-key(3:rsa))":                                                              false,
	} {
		if got := UsedForSSH([]byte(file)); got != want {
			t.Errorf("UsedForSSH(%q) = %v, want %v", file, got, want)
		}
	}
}
