package session

import (
	"bytes"
	"os"
	"os/exec"

	"github.com/claudebox/claudebox/mount"
)

// Trial runs the session's plan for real, with each command in turn in
// place of the plan's own, after one setup of the instance, and stops at
// the first that fails. It returns what each command that succeeded
// printed, and what bwrap said for the last one run.
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
	if err := s.startGPGAgent(); err != nil {
		return nil, "", err
	}
	lock, err := s.materialize()
	if err != nil {
		return nil, "", err
	}
	defer lock.Close()
	defer s.leave(lock, nil)
	for _, command := range commands {
		plan := s.plan
		plan.Command = command
		var out, errb bytes.Buffer
		if err := s.runChild(plan, &out, &errb); err != nil {
			return stdout, errb.String(), err
		}
		stdout = append(stdout, out.String())
	}
	return stdout, "", nil
}

// runChild runs bwrap for plan to its end, with no terminal.
func (s *Session) runChild(plan mount.Plan, stdout, stderr *bytes.Buffer) error {
	files, err := s.descriptors()
	if err != nil {
		return err
	}
	cmd := s.bwrapCmd(plan, files)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	watcher, err := startPlan(cmd, s.startChild, plan, nil)
	closeAll(files)
	if err != nil {
		return err
	}
	err = cmd.Wait()
	stopErr := watcher.Stop()
	watcher.Wait()
	if failed := bwrapFailed(watcher, err); failed != nil {
		return failed
	}
	if stopErr != nil {
		err = stopErr
	}
	return err
}

// bwrapCmd is bwrap for plan, its descriptors numbered from 3 in the
// child, in order; its environment goes to exec, never to argv.
func (s *Session) bwrapCmd(plan mount.Plan, files []*os.File) *exec.Cmd {
	return &exec.Cmd{
		Path:       s.bwrap,
		Args:       append([]string{"bwrap"}, plan.Args()...),
		Env:        plan.Environ(s.lookupEnv),
		ExtraFiles: files,
	}
}
