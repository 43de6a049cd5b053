package session

import (
	"net"
	"os"
	"os/exec"

	"github.com/claudebox/claudebox/gpgagent"
	"github.com/claudebox/claudebox/hint"
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
	os.Remove(s.gpgFilter)
	ln, err := net.Listen("unix", s.gpgFilter)
	if err != nil {
		return nil, hint.Errorf("set HOME to a shorter path, or launch with --with-gpg=false", "cannot listen on %s for the gpg agent: %v", s.gpgFilter, err)
	}
	filter := gpgagent.Serve(ln, sock)
	return func() { filter.Close() }, nil
}
