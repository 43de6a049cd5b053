// Package sandboxmd writes SANDBOX.md: the facts of the sandbox, for Claude,
// derived from the same mount plan that builds it.
package sandboxmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// Render returns SANDBOX.md for plan. It states facts, briefly: Claude
// reads it at the start of every session.
func Render(p mount.Plan) []byte {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	home := homeOf(p)

	line("# Sandbox")
	line("")
	line("This session runs inside claudebox, a bubblewrap sandbox. Facts:")
	line("")
	line("- Project: %s (read-write). Working directory: %s.", p.Project.Checkout, p.Chdir)
	if p.Project.Root != p.Project.Checkout {
		line("- Project root (history key): %s.", p.Project.Root)
	}
	var rw, ro []string
	for _, m := range p.Mounts {
		if m.Kind == mount.Symlink || m.Kind == mount.Proc || m.Kind == mount.Dev {
			continue
		}
		switch {
		case m.Dest == p.Project.Checkout || m.Dest == home || m.Dest == "/tmp":
		case strings.HasPrefix(m.Dest, filepath.Join(home, ".claude", "projects")+"/"):
		case m.Writable():
			rw = append(rw, m.Dest)
		default:
			ro = append(ro, m.Dest)
		}
	}
	line("- Also writable: %s, and /tmp (private, emptied when the session ends).", strings.Join(rw, ", "))
	line("- Read-only: %s.", strings.Join(ro, ", "))
	line("- Hidden: everything else under %s (SSH keys, cloud credentials, other repositories), and the rest of the host filesystem.", home)
	line("- History: conversations and prompt history are kept per project (instance %s); other projects' sessions are not visible.", instance.Hash(p.Project.Root))
	if len(p.Env) > 0 {
		line("- Environment variables passed in (names only): %s. All others were dropped.", strings.Join(p.Env, ", "))
	}
	if p.Network {
		line("- Network: shared with the host.")
	} else {
		line("- Network: none (own network namespace, loopback only).")
	}
	line("- Processes: own PID namespace; host processes are not visible.")
	line("")
	line("The user can widen the sandbox when restarting claudebox:")
	line("")
	line("- pass an environment variable: `claudebox --env NAME`")
	return []byte(b.String())
}

// homeOf finds $HOME in the plan: the private tmpfs that hides it.
func homeOf(p mount.Plan) string {
	for _, m := range p.Mounts {
		if m.Kind == mount.Tmpfs && m.Dest != "/tmp" {
			return m.Dest
		}
	}
	return ""
}
