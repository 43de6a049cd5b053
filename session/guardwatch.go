package session

import (
	"os/exec"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/limits/cgroup"

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
	if _, err := attachPlan(w, cmd, start, p, nil, ready); err != nil {
		return nil, err
	}
	return w, nil
}

// attachPlan starts bwrap for the plan under w, a watcher launched before,
// and, with cg, the sandbox in a cgroup of its own, which it returns.
func attachPlan(w *guardwatch.Watcher, cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan, cg *cgroup.Place, ready func(pid int)) (*cgroup.Group, error) {
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
	// The sandbox's first process enters its cgroup, and without the relay
	// gets its limits, while it waits to run its command; where they
	// cannot be set, it never runs it.
	var limitErr error
	var group *cgroup.Group
	err := w.Attach(cmd, start, guards, append([]string{p.Project.Checkout}, p.Project.GitDirs...), standIns, func(pid int) {
		if cg != nil {
			if group, limitErr = cg.Enter(pid, p.Limits); limitErr != nil {
				unix.Kill(pid, unix.SIGKILL)
				return
			}
		}
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
		return group, err
	}
	return group, limitErr
}
