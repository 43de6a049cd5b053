package session

import (
	"os/exec"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/limits"

	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/mount"
)

// startPlan starts bwrap for the plan with the guard watcher that keeps
// its guards standing while the host replaces what they protect; ready
// is Attach's.
func startPlan(cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan, ready func(pid int)) (*guardwatch.Watcher, error) {
	w, err := guardwatch.Launch()
	if err != nil {
		return nil, err
	}
	if err := attachPlan(w, cmd, start, p, ready); err != nil {
		return nil, err
	}
	return w, nil
}

// attachPlan starts bwrap for the plan under w, a watcher launched before.
func attachPlan(w *guardwatch.Watcher, cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan, ready func(pid int)) error {
	var guards []string
	for _, g := range p.Guards {
		guards = append(guards, g.Path)
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
	// Without the relay, the limits are set on the sandbox's first process
	// while it waits to run its command; where they cannot be, it never
	// runs it.
	var limitErr error
	err := w.Attach(cmd, start, guards, append([]string{p.Project.Checkout}, p.Project.GitDirs...), standIns, func(pid int) {
		if p.Relay == nil {
			if limitErr = limits.Apply(pid, p.Limits); limitErr != nil {
				unix.Kill(pid, unix.SIGKILL)
				return
			}
		}
		if ready != nil {
			ready(pid)
		}
	})
	if err != nil {
		return err
	}
	return limitErr
}
