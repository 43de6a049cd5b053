package main

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

// startSSHD runs a real sshd on the host's loopback as the test's user
// (so it can log in no one else), with a throwaway host key, accepting
// only the public key authorized. Each login runs its command in dir, as
// a git host would: a push to NAME:repo.git reaches dir/repo.git. It
// returns the port and the host key's known_hosts line.
func startSSHD(t *testing.T, h *e2eHost, dir, authorized string) (port int, knownHost string) {
	t.Helper()
	sshd := requireTool(t, "sshd", "apt-get install openssh-server")
	name := e2eUser
	if h.uid < 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		name = u.Username
	}
	hostKey := filepath.Join(h.base, "sshd", "host_key")
	h.write(filepath.Join(h.base, "sshd", "authorized_keys"), authorized)
	h.run(h.base, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey)
	port = freePort(t)
	conf := filepath.Join(h.base, "sshd", "sshd_config")
	// StrictModes would refuse the files under the world-writable /tmp;
	// not root, sshd has no PAM and no privilege separation to do.
	h.write(conf, fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %s
AuthorizedKeysFile %s
AllowUsers %s
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
ForceCommand cd %s && eval "$SSH_ORIGINAL_COMMAND"
`, port, hostKey, filepath.Join(h.base, "sshd", "authorized_keys"), name, dir))
	cmd := h.command(h.base, nil, sshd, "-D", "-e", "-f", conf)
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

// TestSandboxSSHPushAlias: with --with-ssh on the filtered network, git
// push to a ~/.ssh/config alias (Host gitbox) reaches a real sshd on the
// host's loopback through the relay (git's ssh has claudebox's
// ProxyCommand), authenticated by the host's ssh-agent and checked
// against the host's known_hosts; the pushed commit is in the repository
// on the host. (ssh finds its config and known_hosts through the password
// database's home, which for the test's user is not $HOME: -F and
// UserKnownHostsFile name them.)
func TestSandboxSSHPushAlias(t *testing.T) {
	h := newE2EHost(t)
	env := startSSHAgent(t, h)
	srv := filepath.Join(h.base, "srv")
	os.MkdirAll(srv, 0o755)
	h.chown()
	h.run(srv, nil, "git", "init", "-q", "--bare", "repo.git")
	ssh := filepath.Join(h.home, ".ssh")
	pub, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	port, knownHost := startSSHD(t, h, srv, string(pub))
	name := e2eUser
	if u, err := user.Current(); err == nil && h.uid < 0 {
		name = u.Username
	}
	h.write(filepath.Join(ssh, "known_hosts"), knownHost)
	h.write(filepath.Join(ssh, "config"), fmt.Sprintf("Host gitbox\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  UserKnownHostsFile %s\n", port, name, filepath.Join(ssh, "known_hosts")))
	h.write(filepath.Join(h.home, ".config", "claudebox", "config.toml"), fmt.Sprintf("allow-hosts = [\"127.0.0.1:%d\"]\n", port))
	proj := filepath.Join(h.home, "code", "pushed")
	h.gitRepo(proj)
	h.run(proj, nil, "git", "remote", "add", "origin", "gitbox:repo.git")

	out := h.run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		export GIT_SSH_COMMAND="$GIT_SSH_COMMAND -F $HOME/.ssh/config -o BatchMode=yes"
		git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "made inside"
		timeout 60 git push -q origin HEAD:refs/heads/main 2>&1 && echo PUSHED
		git rev-parse HEAD
	`)
	if !strings.Contains(out, "PUSHED") {
		t.Fatalf("git push inside:\n%s", out)
	}
	head := strings.TrimSpace(h.run(proj, nil, "git", "rev-parse", "HEAD"))
	if got := strings.TrimSpace(h.run(srv, nil, "git", "--git-dir=repo.git", "rev-parse", "main")); got != head {
		t.Errorf("the host's repository has main at %s, want the commit made inside, %s", got, head)
	}
}
