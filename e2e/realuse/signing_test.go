package realuse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestSandboxSSHSigning: with --with-ssh, a commit signed inside with git's
// SSH signing (gpg.format=ssh, user.signingkey naming the .pub, as the
// user's ~/.gitconfig says) verifies on the host; ~/.ssh/config and the
// public keys are visible read-only, the private key is not, and a link
// named .pub that leads to a private key is not shown. (ssh finds its
// config through the password database's home, which for the test's user
// is not $HOME: -F names it.)
func TestSandboxSSHSigning(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	ssh := filepath.Join(h.Home, ".ssh")
	h.Write(filepath.Join(ssh, "config"), "Host gitbox\n  HostName 127.0.0.1\n")
	os.Symlink("id_ed25519", filepath.Join(ssh, "stray.pub"))
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n\tsigningkey = "+filepath.Join(ssh, "id_ed25519.pub")+"\n[gpg]\n\tformat = ssh\n[commit]\n\tgpgsign = true\n")
	proj := filepath.Join(h.Home, "code", "signed")
	h.Write(filepath.Join(proj, "README"), "signed\n")
	h.Run(proj, nil, "git", "init", "-q")

	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
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
	signers := filepath.Join(h.Base, "allowed_signers")
	h.Write(signers, "alice@example.com "+string(pub))
	if out := h.Run(proj, nil, "git", "-c", "gpg.ssh.allowedSignersFile="+signers, "verify-commit", "HEAD"); strings.Contains(out, "BAD") {
		t.Errorf("verify-commit: %s", out)
	}
}

// TestSandboxGPGSigning: with --with-gpg, git commit -S inside (the user's
// commit.gpgsign) signs through the host's gpg-agent, and the commit
// verifies on the host; the private keys are not in the sandbox. Without
// the flag the agent is out of reach and signing fails.
func TestSandboxGPGSigning(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n\temail = alice@example.com\n\tsigningkey = "+fpr+"\n[commit]\n\tgpgsign = true\n")
	proj := filepath.Join(h.Home, "code", "signed")
	h.Write(filepath.Join(proj, "README"), "signed\n")
	h.Run(proj, nil, "git", "init", "-q")

	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `
		ls -A ~/.gnupg | grep -q private-keys || echo PRIVATE-HIDDEN
		git add README && git commit -q -m signed && echo COMMITTED
	`)
	for _, want := range []string{"PRIVATE-HIDDEN", "COMMITTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	if out, err := h.Command(proj, nil, "git", "verify-commit", "HEAD").CombinedOutput(); err != nil || !strings.Contains(string(out), "Good signature") {
		t.Errorf("verify-commit on the host: %v\n%s", err, out)
	}
	out = h.Run(proj, nil, "claudebox", "--shell", "-c", `git commit -q --allow-empty -m unsigned 2>/dev/null && echo SIGNED || echo NO-AGENT`)
	if strings.TrimSpace(out) != "NO-AGENT" {
		t.Errorf("without --with-gpg: %s", out)
	}
}
