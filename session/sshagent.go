package session

import (
	"net"
	"os"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/sshagent"
)

// startSSHAgent serves the sandbox's SSH agent with --with-ssh: a filter
// of the user's, on a socket among the session's run files, which the
// plan binds inside (mount.SSHAgentSocket). It passes on listing the keys
// and signing with them; adding, removing and locking keys never reach
// the user's agent. stop closes it.
func (s *Session) startSSHAgent() (stop func(), err error) {
	if s.sshAgent == nil {
		return func() {}, nil
	}
	if err := makeRunDir(s.stateDir); err != nil {
		return nil, hint.Errorf("fix its ownership or permissions: chmod u+rwx "+s.stateDir, "%s is not writable", s.stateDir)
	}
	path := s.runFiles + agentExt
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, hint.Errorf("set HOME to a shorter path, or launch with --with-ssh=false", "cannot listen on %s for the SSH agent: %v", path, err)
	}
	filter := sshagent.Serve(ln, s.sshAgent.upstream, s.sshAgent.rules)
	return func() { filter.Close() }, nil
}
