package network

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplaySSHAgentFilter: with --with-ssh the sandbox once had the
// user's agent socket itself, so it could add a key of its own to the
// user's agent, remove the user's keys, or lock the agent with a
// passphrase only it knows: after the session the host's ssh-add -l said
// the agent had no identities, and the host's next ssh offered the
// attacker's key. The attack, inside: ssh-add of a key made there,
// ssh-add -d and -D, ssh-add -x with a passphrase from an askpass
// program. Host-side proof: each fails inside, while listing and signing
// with the user's key still work (the signature verifies on the host),
// and the host's ssh-add -l afterwards lists the user's key and nothing
// else, unlocked. With ssh-keys naming another key, the user's is out of
// reach.
func TestReplaySSHAgentFilter(t *testing.T) {
	h := harness.NewHost(t)
	env := harness.StartSSHAgent(t, h)
	proj := filepath.Join(h.Home, "code", "agent")
	h.GitRepo(proj)
	before := h.Run(h.Home, env, "ssh-add", "-l")
	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		ssh-keygen -q -t ed25519 -N "" -C attacker -f /tmp/evil
		printf '#!/bin/sh\necho hunter2\n' > /tmp/askpass && chmod +x /tmp/askpass
		check list 'ssh-add -l | grep -q alice@example.com'
		check add '! ssh-add -q /tmp/evil 2>/dev/null'
		check remove '! ssh-add -q -d ~/.ssh/id_ed25519.pub 2>/dev/null'
		check remove-all '! ssh-add -q -D 2>/dev/null'
		check lock '! SSH_ASKPASS=/tmp/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh-add -x </dev/null 2>/dev/null'
		check still-listed 'ssh-add -l | grep -q alice@example.com && ! ssh-add -l | grep -q attacker'
		echo signed data > data
		check sign 'ssh-keygen -q -Y sign -f ~/.ssh/id_ed25519.pub -n git data 2>/dev/null && test -s data.sig'
	`)
	t.Log(out)
	if strings.Contains(out, "FAIL") || strings.Count(out, "ok ") != 7 {
		t.Errorf("inside:\n%s", out)
	}
	if after := h.Run(h.Home, env, "ssh-add", "-l"); after != before {
		t.Errorf("the host's agent changed: ssh-add -l said\n%s\nbefore the session, and now\n%s", before, after)
	}
	pub, err := os.ReadFile(filepath.Join(h.Home, ".ssh", "id_ed25519.pub"))
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(h.Base, "allowed_signers")
	h.Write(signers, "alice@example.com "+string(pub))
	verify := h.Command(proj, nil, "ssh-keygen", "-Y", "verify", "-f", signers, "-I", "alice@example.com", "-n", "git", "-s", filepath.Join(proj, "data.sig"))
	data, _ := os.Open(filepath.Join(proj, "data"))
	defer data.Close()
	verify.Stdin = data
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("the signature made inside does not verify on the host: %v\n%s", err, out)
	}

	// ssh-keys in the user's config.toml names the keys the sandbox may
	// use: another key named, the user's is neither listed nor used.
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "ssh-keys = [\"SHA256:"+strings.Repeat("A", 43)+"\"]\n")
	out = h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		ssh-add -l | grep -q alice@example.com && echo LISTED
		ssh-keygen -q -Y sign -f ~/.ssh/id_ed25519.pub -n git data 2>/dev/null && echo SIGNED
		echo done
	`)
	if out != "done\n" {
		t.Errorf("with another key named in ssh-keys, inside:\n%s", out)
	}
}
