package session

import (
	"os/exec"

	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/mount"
)

// startPlan starts bwrap for the plan with the guard watcher that keeps
// its guards standing while the host replaces what they protect; ready
// is guardwatch.Start's.
func startPlan(cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan, ready func(pid int)) (*guardwatch.Watcher, error) {
	var guards []string
	for _, g := range p.Guards {
		guards = append(guards, g.Path)
	}
	standIns := guardwatch.StandIns{Kinds: map[string]string{}, Instance: p.Instance}
	for _, m := range p.Placeholders() {
		standIns.Kinds[m.Dest] = string(m.Kind)
	}
	return guardwatch.Start(cmd, start, guards, append([]string{p.Project.Checkout}, p.Project.GitDirs...), standIns, ready)
}
