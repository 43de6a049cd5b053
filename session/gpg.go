package session

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
)

// gpgAgent finds what --with-gpg forwards, as the host's gpg would: the
// agent's extra socket and its home, from gpgconf (which honours
// GNUPGHOME), and gpgconf itself, which starts the agent at the launch
// (startGPGAgent): preparing starts nothing, --dry-run included.
func gpgAgent(withGPG bool) (*mount.GPGAgent, string, error) {
	if !withGPG {
		return nil, "", nil
	}
	gpgconf, err := exec.LookPath("gpgconf")
	if err != nil {
		return nil, "", hint.Errorf("install GnuPG (e.g. sudo apt-get install gnupg), or launch with --with-gpg=false", "--with-gpg: gpgconf not found on PATH")
	}
	dirs := map[string]string{}
	out, err := exec.Command(gpgconf, "--list-dirs").Output()
	if err != nil {
		return nil, "", hint.Errorf("check your GnuPG installation: gpgconf --list-dirs", "--with-gpg: gpgconf --list-dirs failed: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			// gpgconf escapes with %XX (%3a for ':').
			if v, err := url.PathUnescape(value); err == nil {
				dirs[name] = v
			}
		}
	}
	home, sock := dirs["homedir"], dirs["agent-extra-socket"]
	if sock == "" || home == "" {
		return nil, "", hint.Errorf("enable it: remove no-extra-socket from gpg-agent.conf", "--with-gpg: gpg-agent has no restricted (extra) socket")
	}
	g := &mount.GPGAgent{Socket: sock}
	for _, name := range []string{"pubring.kbx", "pubring.gpg", "trustdb.gpg"} {
		if c, ok := probe.CopyOf(filepath.Join(home, name)); ok {
			g.Keyring = append(g.Keyring, c)
		}
	}
	for _, name := range []string{"gpg.conf", "common.conf"} {
		if f := filepath.Join(home, name); regular(f) {
			g.Settings = append(g.Settings, f)
		}
	}
	return g, gpgconf, nil
}

// startGPGAgent starts the user's gpg-agent, as gpg itself would, for a
// launch or a trial with --with-gpg; its restricted socket must then be
// one.
func (s *Session) startGPGAgent() error {
	if s.gpgconf == "" {
		return nil
	}
	exec.Command(s.gpgconf, "--launch", "gpg-agent").Run()
	sock := s.gpgSocket
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return hint.Errorf("start it: gpgconf --launch gpg-agent; or launch with --with-gpg=false", "--with-gpg: %s is not a socket (is gpg-agent running?)", sock)
	}
	return nil
}

// regular reports whether path is a regular file, not a link.
func regular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}
