package session

import (
	"bytes"
	"context"
)

// Trial runs the session's plan for real, with each command in turn in
// place of the plan's own, after one setup of the instance, and stops at
// the first that fails. It returns what each command that succeeded
// printed, and what bwrap said for the last one run. Its end audits
// the project as a session's does.
func (s *Session) Trial(commands ...[]string) (stdout []string, stderr string, err error) {
	if r := s.plan.Relay; r != nil && len(r.Publish) > 0 {
		// The host's ports are a running session's: the trial binds none.
		trial := *r
		trial.Publish = nil
		s.plan.Relay = &trial
	}
	stop, err := s.startProxy()
	if err != nil {
		return nil, "", err
	}
	defer stop()
	stopAgent, err := s.startSSHAgent()
	if err != nil {
		return nil, "", err
	}
	defer stopAgent()
	stopGPG, err := s.startGPGAgent()
	if err != nil {
		return nil, "", err
	}
	defer stopGPG()
	s.trial = true
	lock, err := s.materialize()
	if err != nil {
		return nil, "", err
	}
	defer lock.Close()
	defer s.leave(newExitVoice(), lock, nil)
	// Its end's audit needs the start's record as a session's does (the
	// project's reflogs were named without it); no snapshot for --undo is
	// taken, which would be the one --undo then put back.
	s.startSnapshot()
	for _, command := range commands {
		plan := s.plan
		plan.Command = command
		var out, errb bytes.Buffer
		if err := s.runBwrap(context.Background(), plan, &out, &errb); err != nil {
			return stdout, errb.String(), err
		}
		stdout = append(stdout, out.String())
	}
	return stdout, "", nil
}
