package harness

import (
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// StartSSHAgent starts a real ssh-agent as the user, holding a new key at
// ~/.ssh/id_ed25519, and returns the environment that reaches it.
func StartSSHAgent(t *testing.T, h *Host) []string {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		RequireTool(t, tool, "apt-get install openssh-client")
	}
	key := filepath.Join(h.Home, ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(key), 0o700)
	h.Chown()
	h.Run(h.Home, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@example.com", "-f", key)
	sock := filepath.Join(h.Base, "agent.sock")
	agent := h.Command(h.Base, nil, "ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	// The socket's file appears at bind, before the agent listens: a
	// connection tells it is ready.
	for deadline := time.Now().Add(5 * time.Second); !listening(sock); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("ssh-agent did not start")
		}
	}
	env := []string{"SSH_AUTH_SOCK=" + sock}
	h.Run(h.Home, env, "ssh-add", "-q", key)
	return env
}

// StartGPGAgent makes a signing key without a passphrase in the user's
// ~/.gnupg, with its agent running, and returns the key's fingerprint.
func StartGPGAgent(t *testing.T, h *Host) string {
	t.Helper()
	for _, tool := range []string{"gpg", "gpg-agent", "gpgconf"} {
		RequireTool(t, tool, "apt-get install gnupg")
	}
	os.MkdirAll(filepath.Join(h.Home, ".gnupg"), 0o700)
	h.Chown()
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Alice <alice@example.com>", "ed25519", "sign", "never")
	t.Cleanup(func() { h.Command(h.Home, nil, "gpgconf", "--kill", "gpg-agent").Run() })
	for _, line := range strings.Split(h.Run(h.Home, nil, "gpg", "--with-colons", "--list-secret-keys"), "\n") {
		if f, ok := strings.CutPrefix(line, "fpr:::::::::"); ok {
			fpr := strings.TrimSuffix(f, ":")
			// The primary key certifies, which the sandbox's filter
			// never signs with: gpg signs with this subkey.
			h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "ed25519", "sign", "never")
			return fpr
		}
	}
	t.Fatal("no key made")
	return ""
}

// StartSSHD runs a real sshd on the host's loopback as the test's user
// (so it can log in no one else), with a throwaway host key, accepting
// only the public key authorized. Each login runs its command in dir, as
// a git host would: a push to NAME:repo.git reaches dir/repo.git. It
// returns the port and the host key's known_hosts line.
func StartSSHD(t *testing.T, h *Host, dir, authorized string) (port int, knownHost string) {
	t.Helper()
	sshd := RequireTool(t, "sshd", "apt-get install openssh-server")
	name := UnprivilegedUser
	if h.UID < 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		name = u.Username
	}
	// A directory per server, so that a test may run two.
	port = FreePort(t)
	files := filepath.Join(h.Base, "sshd-"+strconv.Itoa(port))
	hostKey := filepath.Join(files, "host_key")
	h.Write(filepath.Join(files, "authorized_keys"), authorized)
	h.Run(h.Base, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey)
	conf := filepath.Join(files, "sshd_config")
	// StrictModes would refuse the files under the world-writable /tmp;
	// not root, sshd has no PAM and no privilege separation to do.
	h.Write(conf, fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %s
AuthorizedKeysFile %s
AllowUsers %s
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
ForceCommand cd %s && eval "$SSH_ORIGINAL_COMMAND"
`, port, hostKey, filepath.Join(files, "authorized_keys"), name, dir))
	cmd := h.Command(h.Base, nil, sshd, "-D", "-e", "-f", conf)
	log := new(strings.Builder)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("sshd:\n%s", log)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen:\n%s", log)
		}
	}
	pub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return port, fmt.Sprintf("[127.0.0.1]:%d %s", port, pub)
}

// listening says a Unix socket at path accepts connections.
func listening(path string) bool {
	c, err := net.Dial("unix", path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// MCPServerScript is a stdio MCP server in bash: one tool, ping, whose
// answer is "MCP-PONG-" and the server's $TOKEN. It echoes the protocol
// version the client asks for.
const MCPServerScript = `#!/bin/bash
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id": *\([0-9][0-9]*\).*/\1/p')
  method=$(printf '%s' "$line" | sed -n 's/.*"method": *"\([^"]*\)".*/\1/p')
  [ -z "$id" ] && continue
  case "$method" in
  initialize)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    result='{"protocolVersion":"'"$v"'","capabilities":{"tools":{}},"serverInfo":{"name":"pingsrv","version":"1"}}' ;;
  tools/list)
    result='{"tools":[{"name":"ping","description":"Answers pong.","inputSchema":{"type":"object","properties":{}}}]}' ;;
  tools/call)
    result='{"content":[{"type":"text","text":"MCP-PONG-'"$TOKEN"'"}]}' ;;
  *) result='{}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$result"
done
`
