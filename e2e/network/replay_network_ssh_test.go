package network

import (
	"bufio"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// sshBanner is a stand-in for an SSH server on the host's loopback: it
// sends a server's identification line and reports the client's.
func sshBanner(t *testing.T) (port string, client <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	lines := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("SSH-2.0-ClaudeboxFake\r\n"))
				c.SetReadDeadline(time.Now().Add(20 * time.Second))
				line, _ := bufio.NewReader(c).ReadString('\n')
				lines <- line
			}()
		}
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), lines
}

// TestReplayNetworkSSH: with --with-ssh under the filtered network, git
// over SSH goes through the proxy (ssh's ProxyCommand is claudebox's
// --relay-connect) to an SSH server the allow list names with its port.
// The attack: reach an SSH port the user did not list, on the same
// address. The proof, on the host side: the listed server reads the
// OpenSSH client's identification, the unlisted one sees no connection,
// and the refusal tells how to allow it (HOST:PORT, since an entry without
// a port allows 443 and 80 only).
func TestReplayNetworkSSH(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "ssh", "apt-get install openssh-client")
	listed, listedClient := sshBanner(t)
	unlisted, unlistedClient := sshBanner(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "allow-hosts = [\"127.0.0.1:"+listed+"\"]\n")
	ssh := "-o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=20"
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		export GIT_SSH_COMMAND="$GIT_SSH_COMMAND `+ssh+`"
		# The stand-in server ends the exchange after the banners: git
		# fails, and the host's side tells what reached it.
		timeout 30 git ls-remote ssh://git@127.0.0.1:`+listed+`/repo.git 2>/dev/null
		check unlisted 'timeout 30 git ls-remote ssh://git@127.0.0.1:`+unlisted+`/repo.git 2>/tmp/err; grep -q "allow-host 127.0.0.1:`+unlisted+`" /tmp/err || { cat /tmp/err; false; }'
		check no-direct '! timeout 30 ssh `+ssh+` -o ProxyCommand=none -p `+listed+` git@127.0.0.1 true 2>/dev/null'
	`)
	t.Log(out)
	if strings.Contains(out, "FAIL") || strings.Count(out, "ok ") != 2 {
		t.Errorf("inside:\n%s", out)
	}
	select {
	case line := <-listedClient:
		if !strings.HasPrefix(line, "SSH-2.0-OpenSSH") {
			t.Errorf("the listed SSH server read %q", line)
		}
	case <-time.After(time.Second):
		t.Error("git over SSH did not reach the listed server")
	}
	select {
	case line := <-unlistedClient:
		t.Errorf("a port not listed was reached from inside: %q", line)
	default:
	}
}
