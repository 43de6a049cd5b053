package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/paths"
)

// startSSHAgent starts a real ssh-agent as the user, holding a new key at
// ~/.ssh/id_ed25519, and returns the environment that reaches it.
func startSSHAgent(t *testing.T, h *e2eHost) []string {
	t.Helper()
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		requireTool(t, tool, "apt-get install openssh-client")
	}
	key := filepath.Join(h.home, ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(key), 0o700)
	h.chown()
	h.run(h.home, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@example.com", "-f", key)
	sock := filepath.Join(h.base, "agent.sock")
	agent := h.command(h.base, nil, "ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for deadline := time.Now().Add(5 * time.Second); !paths.Exists(sock); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("ssh-agent did not start")
		}
	}
	env := []string{"SSH_AUTH_SOCK=" + sock}
	h.run(h.home, env, "ssh-add", "-q", key)
	return env
}

// TestSandboxSSHSigning: with --with-ssh, a commit signed inside with git's
// SSH signing (gpg.format=ssh, user.signingkey naming the .pub, as the
// user's ~/.gitconfig says) verifies on the host; ~/.ssh/config and the
// public keys are visible read-only, the private key is not, and a link
// named .pub that leads to a private key is not shown. (ssh finds its
// config through the password database's home, which for the test's user
// is not $HOME: -F names it.)
func TestSandboxSSHSigning(t *testing.T) {
	h := newE2EHost(t)
	env := startSSHAgent(t, h)
	ssh := filepath.Join(h.home, ".ssh")
	h.write(filepath.Join(ssh, "config"), "Host gitbox\n  HostName 127.0.0.1\n")
	os.Symlink("id_ed25519", filepath.Join(ssh, "stray.pub"))
	h.write(filepath.Join(h.home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n\tsigningkey = "+filepath.Join(ssh, "id_ed25519.pub")+"\n[gpg]\n\tformat = ssh\n[commit]\n\tgpgsign = true\n")
	proj := filepath.Join(h.home, "code", "signed")
	h.write(filepath.Join(proj, "README"), "signed\n")
	h.run(proj, nil, "git", "init", "-q")

	out := h.run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		test -e ~/.ssh/id_ed25519 || echo KEY-HIDDEN
		test -e ~/.ssh/stray.pub || echo STRAY-HIDDEN
		ssh -F ~/.ssh/config -G gitbox | grep '^hostname '
		echo x >> ~/.ssh/config 2>/dev/null || echo CONFIG-READ-ONLY
		git add README && git commit -q -m signed && echo COMMITTED
	`)
	for _, want := range []string{"KEY-HIDDEN", "STRAY-HIDDEN", "hostname 127.0.0.1", "CONFIG-READ-ONLY", "COMMITTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(ssh, "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(h.base, "allowed_signers")
	h.write(signers, "alice@example.com "+string(pub))
	if out := h.run(proj, nil, "git", "-c", "gpg.ssh.allowedSignersFile="+signers, "verify-commit", "HEAD"); strings.Contains(out, "BAD") {
		t.Errorf("verify-commit: %s", out)
	}
}

// startGPGAgent makes a signing key without a passphrase in the user's
// ~/.gnupg, with its agent running, and returns the key's fingerprint.
func startGPGAgent(t *testing.T, h *e2eHost) string {
	t.Helper()
	for _, tool := range []string{"gpg", "gpg-agent", "gpgconf"} {
		requireTool(t, tool, "apt-get install gnupg")
	}
	os.MkdirAll(filepath.Join(h.home, ".gnupg"), 0o700)
	h.chown()
	h.run(h.home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key", "Alice <alice@example.com>", "ed25519", "sign", "never")
	t.Cleanup(func() { h.command(h.home, nil, "gpgconf", "--kill", "gpg-agent").Run() })
	for _, line := range strings.Split(h.run(h.home, nil, "gpg", "--with-colons", "--list-secret-keys"), "\n") {
		if f, ok := strings.CutPrefix(line, "fpr:::::::::"); ok {
			return strings.TrimSuffix(f, ":")
		}
	}
	t.Fatal("no key made")
	return ""
}

// TestSandboxGPGSigning: with --with-gpg, git commit -S inside (the user's
// commit.gpgsign) signs through the host's gpg-agent, and the commit
// verifies on the host; the private keys are not in the sandbox. Without
// the flag the agent is out of reach and signing fails.
func TestSandboxGPGSigning(t *testing.T) {
	h := newE2EHost(t)
	fpr := startGPGAgent(t, h)
	h.write(filepath.Join(h.home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n\tsigningkey = "+fpr+"\n[commit]\n\tgpgsign = true\n")
	proj := filepath.Join(h.home, "code", "signed")
	h.write(filepath.Join(proj, "README"), "signed\n")
	h.run(proj, nil, "git", "init", "-q")

	out := h.run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `
		ls -A ~/.gnupg | grep -q private-keys || echo PRIVATE-HIDDEN
		git add README && git commit -q -m signed && echo COMMITTED
	`)
	for _, want := range []string{"PRIVATE-HIDDEN", "COMMITTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	if out, err := h.command(proj, nil, "git", "verify-commit", "HEAD").CombinedOutput(); err != nil || !strings.Contains(string(out), "Good signature") {
		t.Errorf("verify-commit on the host: %v\n%s", err, out)
	}
	out = h.run(proj, nil, "claudebox", "--shell", "-c", `git commit -q --allow-empty -m unsigned 2>/dev/null && echo SIGNED || echo NO-AGENT`)
	if strings.TrimSpace(out) != "NO-AGENT" {
		t.Errorf("without --with-gpg: %s", out)
	}
}
