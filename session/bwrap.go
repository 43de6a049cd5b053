package session

import (
	"context"
	"io"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/limits/cgroup"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/pty"
)

// The one way bwrap runs, for a launch, --check's trial and an eval run:
// startBwrap starts it for a plan beside its guard watcher, and
// (*sandbox).wait waits for it; runBwrap does both for a run with no
// terminal.

// bwrapStart is what starting bwrap asks besides its plan.
type bwrapStart struct {
	// watcher was launched before (a launch's, whose runtime starts while
	// the instance is made); nil launches one here.
	watcher *guardwatch.Watcher
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	// described runs once the descriptors are made, before the terminal is
	// taken: what making them left out can still be said.
	described func()
	// terminal gives the sandbox a terminal of its own when claudebox has
	// one (pty.Attach).
	terminal bool
	// cgroup, when set, is where the sandbox gets a cgroup of its own.
	cgroup *cgroup.Place
	// ready runs once bwrap's first process is in place, before its
	// command runs.
	ready func(pid int)
}

// sandbox is bwrap running for a plan beside its guard watcher.
type sandbox struct {
	cmd     *exec.Cmd
	watcher *guardwatch.Watcher
	// relay is the sandbox's terminal (nil without one); group, its
	// cgroup (nil without one).
	relay *pty.Relay
	group *cgroup.Group
}

// startBwrap starts bwrap for plan, with the descriptors the plan names,
// beside its guard watcher. On an error nothing of it runs, the terminal
// is claudebox's again and the watcher it was given or launched is gone;
// a cgroup it made (run.group, where run is not nil) is the caller's to
// remove, once bwrap's process is gone.
func (s *Session) startBwrap(plan mount.Plan, b bwrapStart) (*sandbox, error) {
	w := b.watcher
	if w == nil {
		var err error
		if w, err = guardwatch.Launch(); err != nil {
			return nil, err
		}
	}
	files, err := s.descriptors()
	if err != nil {
		w.Abandon()
		return nil, err
	}
	defer closeAll(files)
	if b.described != nil {
		b.described()
	}
	cmd := s.bwrapCmd(plan, files)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = b.stdin, b.stdout, b.stderr
	run := &sandbox{cmd: cmd, watcher: w}
	if b.terminal {
		if run.relay, err = pty.Attach(cmd, s.clipboard); err != nil {
			w.Abandon()
			return nil, err
		}
	}
	if run.group, err = attachPlan(w, cmd, s.startChild, plan, b.cgroup, b.ready); err != nil && run.relay != nil {
		run.relay.Restore()
	}
	return run, err
}

// wait waits for bwrap to end, forwarding to it each signal from sigs and
// SIGTERM when ctx ends, and returns what its Wait said.
func (r *sandbox) wait(ctx context.Context, sigs <-chan os.Signal) error {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				r.cmd.Process.Signal(sig)
			case <-ctx.Done():
				r.cmd.Process.Signal(unix.SIGTERM)
				return
			case <-done:
				return
			}
		}
	}()
	err := r.cmd.Wait()
	close(done)
	return err
}

// runBwrap runs bwrap for plan to its end, with no terminal, and its
// watcher to its own; ctx's end is forwarded as SIGTERM. It returns what
// bwrap's Wait said, or why the run failed: bwrap could not make the
// sandbox, or the watcher found the guards broken.
func (s *Session) runBwrap(ctx context.Context, plan mount.Plan, stdout, stderr io.Writer) error {
	removeCopies, err := s.writeDirCopies(plan)
	if err != nil {
		return err
	}
	defer removeCopies()
	run, err := s.startBwrap(plan, bwrapStart{stdout: stdout, stderr: stderr})
	if err != nil {
		return err
	}
	err = run.wait(ctx, nil)
	stopErr := run.watcher.Stop()
	run.watcher.Wait()
	if failed := bwrapFailed(run.watcher, err); failed != nil {
		return failed
	}
	if stopErr != nil {
		return stopErr
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

// attachPlan starts bwrap for the plan under w, a watcher launched before,
// and, with cg, the sandbox in a cgroup of its own, which it returns.
func attachPlan(w *guardwatch.Watcher, cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan, cg *cgroup.Place, ready func(pid int)) (*cgroup.Group, error) {
	var guards, gitConfigs []string
	for _, g := range p.Guards {
		guards = append(guards, g.Path)
		if g.GitConfig {
			gitConfigs = append(gitConfigs, g.Path)
		}
	}
	standIns := guardwatch.StandIns{Kinds: map[string]string{}, Saved: map[string][]string{}, Instance: p.Instance}
	for _, m := range p.Placeholders() {
		standIns.Kinds[m.Dest] = string(m.Kind)
	}
	for _, g := range p.Guards {
		if len(g.Saved) > 0 {
			standIns.Saved[g.Path] = g.Saved
		}
	}
	// The sandbox's first process enters its cgroup while it waits to run
	// its command (it sets its limits on itself); where it cannot, it
	// never runs it.
	var limitErr error
	var group *cgroup.Group
	err := w.Attach(cmd, start, guards, gitConfigs, append([]string{p.Project.Checkout}, p.Project.GitDirs...), standIns, func(pid int) {
		if cg != nil {
			if group, limitErr = cg.Enter(pid, p.Limits); limitErr != nil {
				unix.Kill(pid, unix.SIGKILL)
				return
			}
		}
		if ready != nil {
			ready(pid)
		}
	})
	if err != nil {
		return group, err
	}
	return group, limitErr
}
