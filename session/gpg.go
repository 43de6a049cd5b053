package session

import (
	"os"
	"os/exec"

	"github.com/claudebox/claudebox/hint"
)

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
