package gpgagent

import (
	"bufio"
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
// case) with an error, never reaching the agent.
func TestFilterPassesSigningOnly(t *testing.T) {
	upstream, got := fakeAgent(t)
	sock := filepath.Join(t.TempDir(), "filter")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	f := Serve(ln, upstream)
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
		"OPTION ttyname=/dev/pts/1", "SIGKEY 0123", "SETHASH 10 ABCD", "PKSIGN", "pkdecrypt", "SETKEY 0123",
		"PKDECRYPT", "SCD SERIALNO", "EXPORT_KEY 0123", "IMPORT_KEY", "PRESET_PASSPHRASE x -1 41", "BYE",
	} {
		c.Write([]byte(line + "\n"))
		answer, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if want := signing[verb([]byte(line))]; strings.HasPrefix(answer, "OK") != want {
			t.Errorf("%s: answered %q", line, answer)
		}
	}
	passed := strings.Join(got(), "\n")
	if want := "OPTION ttyname=/dev/pts/1\nSIGKEY 0123\nSETHASH 10 ABCD\nPKSIGN\nBYE"; passed != want {
		t.Errorf("the agent got:\n%s\nwant:\n%s", passed, want)
	}
}
