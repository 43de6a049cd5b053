// Package sandboxmd writes SANDBOX.md: the facts of the sandbox, for Claude,
// derived from the same mount plan that builds it.
package sandboxmd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/mount"
)

// Render returns SANDBOX.md for plan. It states facts, briefly: Claude
// reads it at the start of every session.
func Render(p mount.Plan) []byte {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	home := p.Home

	line("# Sandbox")
	line("")
	line("This session runs inside claudebox, a bubblewrap sandbox. Facts:")
	line("")
	line("- Project: %s (read-write). Working directory: %s.", p.Project.Checkout, p.Chdir)
	if p.Project.Root != p.Project.Checkout {
		line("- Project root (history key): %s.", p.Project.Root)
	}
	claudeDir := filepath.Join(home, ".claude")
	var rw, ro []string
	for _, m := range p.Mounts {
		switch {
		case m.Kind == mount.Symlink || m.Kind == mount.Proc || m.Kind == mount.Dev || m.Kind == mount.Tmpfs:
		case m.Dest == p.Project.Checkout:
		case strings.HasPrefix(m.Dest, claudeDir+"/"):
			// Overlays inside ~/.claude: described by the history line.
		case m.Writable():
			rw = append(rw, m.Dest)
		default:
			ro = append(ro, m.Dest)
		}
	}
	line("- Also writable: %s. Changes there persist on the host.", strings.Join(rw, ", "))
	line("- Private: %s and /tmp are empty tmpfs; anything else written there is lost when the session ends.", home)
	line("- Read-only: %s.", strings.Join(ro, ", "))
	line("- Hidden: the rest of the host's %s (SSH keys, cloud credentials, other repositories) and every host path not listed here.", home)
	line("- History: %s/projects holds this project's sessions only (instance %s); other projects' sessions are not visible. %s/history.jsonl is claudebox's prompt history, separate from the host's.", claudeDir, filepath.Base(p.Instance), claudeDir)
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
	line("More access needs the user to restart claudebox:")
	line("")
	line("- an environment variable: `claudebox --env NAME`")
	line("- files outside the project: start claudebox in a directory that contains them")
	return []byte(b.String())
}
