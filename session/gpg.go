package session

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/gpgagent"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/printable"
)

// startGPGAgent starts the user's gpg-agent, as gpg itself would, for a
// launch or a trial with --with-gpg, and serves the sandbox's: a filter of
// its restricted socket (which must then be one) that passes on only what
// signing needs, on a socket among the session's run files, which the plan
// binds inside. stop closes it.
func (s *Session) startGPGAgent() (stop func(), err error) {
	if s.gpgconf == "" {
		return func() {}, nil
	}
	exec.Command(s.gpgconf, "--launch", "gpg-agent").Run()
	sock := s.gpgSocket
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil, hint.Errorf("start it: gpgconf --launch gpg-agent; or launch with --with-gpg=false", "--with-gpg: %s is not a socket (is gpg-agent running?)", sock)
	}
	if err := makeRunDir(s.stateDir); err != nil {
		return nil, hint.Errorf("fix its ownership or permissions: chmod u+rwx "+s.stateDir, "%s is not writable", s.stateDir)
	}
	signers, err := signingKeys(s.gpgconf)
	if err != nil {
		return nil, err
	}
	os.Remove(s.gpgFilter)
	ln, err := net.Listen("unix", s.gpgFilter)
	if err != nil {
		return nil, hint.Errorf("set HOME to a shorter path, or launch with --with-gpg=false", "cannot listen on %s for the gpg agent: %v", s.gpgFilter, err)
	}
	filter := gpgagent.Serve(ln, sock, signers)
	return func() { filter.Close() }, nil
}

// signingKeys are the keygrips of the user's keys that sign, as the gpg
// that gpgconf names lists them, but those gpg-agent serves as SSH keys
// (its home's sshcontrol lists them, or their file says Use-for-ssh): the
// only keys the filter lets the sandbox sign with. The listing leaves the
// trust database as it is.
func signingKeys(gpgconf string) ([]string, error) {
	const again = "check your GnuPG installation: gpg --list-secret-keys; or launch with --with-gpg=false"
	components, err := exec.Command(gpgconf, "--list-components").Output()
	if err != nil {
		return nil, hint.Errorf(again, "--with-gpg: gpgconf --list-components failed: %v", err)
	}
	gpg := ""
	for _, line := range strings.Split(string(components), "\n") {
		if f := strings.Split(line, ":"); len(f) >= 3 && f[0] == "gpg" {
			gpg = f[2]
		}
	}
	if gpg == "" {
		return nil, hint.Errorf(again, "--with-gpg: gpgconf names no gpg")
	}
	listing, err := exec.Command(gpg, "--batch", "--no-auto-check-trustdb", "--with-colons", "--with-keygrip", "--list-secret-keys").Output()
	if err != nil {
		return nil, hint.Errorf(again, "--with-gpg: gpg --list-secret-keys failed: %v", err)
	}
	home, err := exec.Command(gpgconf, "--list-dirs", "homedir").Output()
	if err != nil {
		return nil, hint.Errorf(again, "--with-gpg: gpgconf --list-dirs homedir failed: %v", err)
	}
	dir := strings.TrimSpace(string(home))
	sshcontrol, err := os.ReadFile(filepath.Join(dir, "sshcontrol"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, hint.Errorf(again, "--with-gpg: cannot read gpg-agent's sshcontrol: %v", err)
	}
	candidates, alsoLogIn, alsoCertify := gpgagent.SigningKeys(string(listing), gpgagent.SSHControlKeys(sshcontrol))
	var signers []string
	for _, grip := range candidates {
		if key, err := os.ReadFile(filepath.Join(dir, "private-keys-v1.d", strings.ToUpper(grip)+".key")); err == nil && gpgagent.UsedForSSH(key) {
			alsoLogIn = append(alsoLogIn, grip)
			continue
		}
		signers = append(signers, grip)
	}
	if len(alsoLogIn) > 0 {
		printable.Say(os.Stderr, "claudebox: --with-gpg: the sandbox signs with none of your %d keys that sign and also log in (they authenticate, or gpg-agent serves them for SSH)", len(alsoLogIn))
		printable.Say(os.Stderr, "hint: sign with a key that only signs: git config --global user.signingKey KEYID!")
	}
	if len(alsoCertify) > 0 {
		printable.Say(os.Stderr, "claudebox: --with-gpg: the sandbox signs with none of your %d keys that sign and also certify (a certification is a signature too: of a user ID or a subkey the sandbox made, bound to your key)", len(alsoCertify))
		printable.Say(os.Stderr, "hint: give your key a subkey that only signs, which gpg then signs with: gpg --quick-add-key FINGERPRINT ed25519 sign")
	}
	return signers, nil
}
