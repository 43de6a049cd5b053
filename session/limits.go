package session

import (
	"errors"
	"os"
	"os/exec"

	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/limits/cgroup"
	"github.com/claudebox/claudebox/printable"
)

// sayLimitsReached says, once the sandbox has ended, where it met its
// bounds, naming the bound and how to raise it. A cgroup counts what the
// kernel killed for memory and the forks it refused; limits set on
// processes leave no count, so a failed command under a memory bound is
// said to have perhaps met it.
func (s *Session) sayLimitsReached(group *cgroup.Group, waited error) {
	l := s.plan.Limits
	raiseMemory := func() {
		more := limits.FormatSize(2 * l.Memory)
		printable.Say(os.Stderr, "hint: give it more: claudebox --memory %s, or memory = %q in config.toml", more, more)
	}
	if group != nil {
		events := group.Events()
		if l.Memory > 0 && events.OOMKills > 0 {
			printable.Say(os.Stderr, "claudebox: the kernel killed %d process(es) inside for memory: the sandbox may use %s in total (--memory)", events.OOMKills, limits.FormatSize(l.Memory))
			raiseMemory()
		}
		if l.Tasks > 0 && events.ForksRefused > 0 {
			printable.Say(os.Stderr, "claudebox: the sandbox reached its bound of %d processes and threads: %d fork(s) failed (--pids)", l.Tasks, events.ForksRefused)
			printable.Say(os.Stderr, "hint: raise it: claudebox --pids %d, or pids = %d in config.toml", 2*l.Tasks, 2*l.Tasks)
		}
		return
	}
	var exit *exec.ExitError
	if l.Memory > 0 && errors.As(waited, &exit) {
		printable.Say(os.Stderr, "claudebox: the sandbox's command failed (status %d); if it ran out of memory, each process inside may use %s (--memory)", statusOf(exit.ProcessState), limits.FormatSize(l.Memory))
		raiseMemory()
	}
}

// Cgroup says where the sandbox gets a cgroup of its own for its limits,
// or nil and why it gets none.
func (s *Session) Cgroup() (*cgroup.Place, string) { return s.cgroup, s.noCgroup }
