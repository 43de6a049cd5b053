package network

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayGPGAgentKeepsKeys: the attack: given the user's gpg-agent
// (--with-gpg), the agent exports the secret key through it (gpg
// --export-secret-keys, which asks the agent for the key and gets it when
// it has no passphrase, or one the agent has cached), deletes it, or plants
// a key of its own for the host to sign with later. The proof, on the host
// side: the socket forwarded is the agent's extra one, which refuses
// exporting, deleting and importing keys: no secret key reaches the
// sandbox, and the host's gpg lists the same secret keys afterwards.
func TestReplayGPGAgentKeepsKeys(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	before := h.Run(h.Home, nil, "gpg", "--with-colons", "--list-secret-keys")
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		gpg --batch --pinentry-mode loopback --passphrase '' --armor --export-secret-keys `+fpr+`
		gpg --batch --yes --pinentry-mode loopback --passphrase '' --delete-secret-keys `+fpr+`
		gpg --batch --passphrase '' --quick-gen-key 'Mallory <m@example.com>' ed25519 sign never
		gpg-connect-agent 'keyinfo --list' /bye
	`)
	if strings.Contains(out, "PRIVATE KEY BLOCK") {
		t.Fatalf("the secret key left the agent:\n%s", out)
	}
	if after := h.Run(h.Home, nil, "gpg", "--with-colons", "--list-secret-keys"); after != before {
		t.Errorf("the host's secret keys changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if strings.Contains(h.Run(h.Home, nil, "gpg", "--list-keys"), "Mallory") {
		t.Error("a key made inside is in the host's keyring")
	}
}
