package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview18GPGAgentAuthKey: with --with-gpg, the filter of the
// user's gpg-agent passed every signing command on, for any key the agent
// holds. A key for logins is among them wherever gpg-agent is the user's
// SSH agent (enable-ssh-support): an authentication subkey, a YubiKey's,
// or a key ssh-add put there; an RSA one's PKCS#1 signature of a SHA-256
// hash is an SSH login's signature (rsa-sha2-256), so the sandbox could
// log in as the user anywhere it reaches, past --with-ssh's filter of
// hosts, users and keys, which it was never given. The attack, from
// inside: ask the filter to sign a hash with the authentication subkey's
// keygrip. Proof: the agent signs nothing with it; the signing key still
// signs.
func TestReplayReview18GPGAgentAuthKey(t *testing.T) {
	h := harness.NewHost(t)
	fpr := harness.StartGPGAgent(t, h)
	h.Run(h.Home, nil, "gpg", "--batch", "--quiet", "--passphrase", "", "--quick-add-key", fpr, "rsa2048", "auth", "never")
	var authGrip string
	last := ""
	for _, line := range strings.Split(h.Run(h.Home, nil, "gpg", "--with-colons", "--with-keygrip", "--list-secret-keys"), "\n") {
		f := strings.Split(line, ":")
		switch {
		case f[0] == "sec" || f[0] == "ssb":
			last = f[11]
		case f[0] == "grp" && len(f) > 9 && strings.Contains(last, "a") && !strings.Contains(last, "s"):
			authGrip = f[9]
		}
	}
	if authGrip == "" {
		t.Fatal("no authentication subkey made")
	}
	proj := filepath.Join(h.Home, "code", "p")
	h.Write(filepath.Join(proj, "README"), "p\n")
	hash := strings.Repeat("ab", 32)
	out := h.Run(proj, nil, "claudebox", "--with-gpg", "--shell", "-c", `exec 2>&1
		gpg-connect-agent --no-autostart "SIGKEY `+authGrip+`" "SETHASH --hash=sha256 `+hash+`" PKSIGN /bye
		echo data | gpg --batch --quiet --local-user `+fpr+` --sign >/dev/null && echo SIGNED
		echo done`)
	t.Log(out)
	if strings.Contains(out, "sig-val") {
		t.Errorf("the sandbox signed a hash with the user's authentication key:\n%s", out)
	}
	if !strings.Contains(out, "SIGNED") {
		t.Errorf("the signing key does not sign:\n%s", out)
	}
}
