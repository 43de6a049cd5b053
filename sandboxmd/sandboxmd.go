// Package sandboxmd writes SANDBOX.md: the facts of the sandbox, for Claude,
// derived from the same mount plan that builds it.
package sandboxmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/instance"
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
	line("- Project: %s (read-write, but for the protected paths below). Working directory: %s.", p.Project.Checkout, p.Chdir)
	if p.Project.Root != p.Project.Checkout {
		line("- Project root (history key): %s.", p.Project.Root)
	}
	claudeDir := filepath.Join(home, ".claude")
	// The project, the protections, the toolchains, the agent and the
	// user's binds have lines of their own below.
	var rw, ro, copies []string
	for _, m := range p.Mounts {
		switch {
		case m.Role == mount.ClaudeConfig && m.Kind == mount.BindData:
			copies = append(copies, filepath.Base(m.Dest))
		case m.Role == mount.GitDir:
			rw = append(rw, m.Dest)
		case m.Role == mount.HostFiles && m.Kind == mount.RoBind:
			ro = append(ro, m.Dest)
		}
	}
	if len(rw) > 0 {
		line("- Also writable: %s. Changes there persist on the host.", strings.Join(rw, ", "))
	}
	if len(p.Binds) > 0 {
		var binds []string
		for _, b := range p.Binds {
			what := b.Dest + " (read-only"
			if b.Writable {
				what = b.Dest + " (read-write: changes persist on the host"
				var ro []string
				for _, m := range p.Mounts {
					if m.Role == mount.Requested && m.Kind == mount.RoBind && instance.Within(m.Dest, b.Dest) {
						ro = append(ro, strings.TrimPrefix(m.Dest, b.Dest+"/"))
					}
				}
				if len(ro) > 0 {
					what += ", but for " + strings.Join(ro, ", ") + ", read-only"
				}
			}
			if b.Src != b.Dest {
				what += ", from the host's " + b.Src
			}
			binds = append(binds, what+")")
		}
		line("- Mounted at the user's request: %s.", strings.Join(binds, "; "))
		var hidden []string
		for _, h := range p.Hidden {
			if !h.Own {
				hidden = append(hidden, h.Path)
			}
		}
		if len(hidden) > 0 {
			line("  Left out of them: %s (secrets).", strings.Join(hidden, ", "))
		}
	}
	if len(p.Toolchains) > 0 {
		var entries []string
		for _, t := range p.Toolchains {
			var roots []string
			for _, r := range t.Roots {
				roots = append(roots, r.Path)
			}
			entries = append(entries, t.Entry+" ("+strings.Join(roots, ", ")+")")
		}
		line("- The toolchains on PATH, read-only (their programs run; install or update them on the host): %s.", strings.Join(entries, "; "))
	}
	for _, pp := range p.PathProblems {
		line("- PATH entry %s does not work here: %s.", pp.Entry, pp.Reason)
	}
	var locked, private, absent []string
	var operations, inProgress bool
	for _, g := range p.Guards {
		name := g.Path
		if rel, err := filepath.Rel(p.Project.Checkout, g.Path); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		if g.From != "" {
			name += " (the host obeys it through " + g.From + ")"
		}
		if g.GitOperation() {
			operations = true
			inProgress = inProgress || g.Exists
		}
		switch g.Mount().Kind {
		case mount.Tmpfs:
			absent = append(absent, name)
		case mount.BindData:
			private = append(private, name)
		default:
			locked = append(locked, name)
		}
	}
	if len(p.Guards) > 0 {
		line("- Protected, because the host runs or obeys them (git hooks and config, editor, shell and Claude Code settings):")
	}
	if len(locked) > 0 {
		line("  read-only: %s;", strings.Join(locked, ", "))
	}
	if len(private) > 0 {
		line("  private to this session (saves work, the host's file is unchanged): %s;", strings.Join(private, ", "))
	}
	if len(absent) > 0 {
		line("  cannot be created: %s.", strings.Join(absent, ", "))
	}
	if operations {
		line("- git rebase, git am, cherry-pick and revert fail here: their state in .git is protected, because the host's git runs the commands their todo lists. Ask the user to run them on the host.")
	}
	if inProgress {
		line("- A rebase, am, cherry-pick or revert is in progress: it can only be continued or aborted on the host; ask the user to.")
	}
	line("- %s shows the host's configuration read-only (plugins, skills, agents, commands, hooks); other projects' sessions, todos and file history are not there. Writable: projects/ (this project's sessions only, instance %s), history.jsonl (this project's prompts). Anything else written there is private and lost at exit.", claudeDir, filepath.Base(p.Instance))
	if len(copies) > 0 {
		line("  %s there: private copies, changes last for this session.", strings.Join(copies, ", "))
	}
	homeBound := slices.ContainsFunc(p.Binds, func(b mount.BindSpec) bool { return b.Dest == home })
	if homeBound {
		line("- Private: /tmp is an empty tmpfs; what is written there, or in %s outside the mounts above, is lost when the session ends.", home)
	} else {
		line("- Private: %s and /tmp are empty tmpfs; anything else written there is lost when the session ends.", home)
	}
	line("- Read-only: %s.", strings.Join(ro, ", "))
	var ownHidden []string
	for _, h := range p.Hidden {
		if h.Own {
			ownHidden = append(ownHidden, h.Path)
		}
	}
	if len(ownHidden) > 0 {
		line("- Hidden inside the read-only paths above (secrets): %s.", strings.Join(ownHidden, ", "))
	}
	if homeBound {
		line("- Hidden: SSH keys, cloud credentials and the other secrets named above, other projects' histories, and every host path not listed here.")
	} else {
		line("- Hidden: the rest of the host's %s (SSH keys, cloud credentials, other projects and their histories) and every host path not listed here.", home)
	}
	if len(p.Env) > 0 {
		line("- Environment variables passed in (names only): %s. All others were dropped.", strings.Join(p.Env, ", "))
	}
	if p.Network {
		line("- Network: shared with the host.")
	} else {
		line("- Network: none (own network namespace, loopback only).")
	}
	if p.API != nil {
		line("- Claude's API: through claudebox's proxy outside the sandbox (ANTHROPIC_BASE_URL). %s here is a phantom credential for this session, worthless anywhere else; the user's real login or key is not in the sandbox. The proxy passes only the Messages API (/v1/messages, count_tokens, the model list).", p.API.Variable)
	}
	if p.SSHAgent {
		line("- SSH: the user's SSH agent is at $SSH_AUTH_SOCK (git push over SSH works); the keys themselves are not readable.")
	}
	line("- Host logins: the user's logins of other tools live in the hidden part of the home, so gh, glab, the cloud CLIs (aws, gcloud, az), docker and package registries are logged out here. When one says to log in, tell the user it is the sandbox, not their login: they can pass a token with `claudebox --env GH_TOKEN` (or the tool's own variable), or run the command on the host.")
	line("- IDE integration: off. Claude Code's IDE lock files (~/.claude/ide) are not shared, so /ide finds no IDE: nothing is wrong with the user's IDE or its extension.")
	line("- Processes: own PID namespace; host processes are not visible. No new user namespaces (so no nested sandbox such as bwrap or Chromium's); no keystroke injection into the terminal.")
	line("- Claude Code's own sandbox (settings sandbox.enabled) is off in the private copies of the settings files: it would need a nested bwrap. This sandbox confines Bash instead, with the mounts and network above; sandbox.network and sandbox.filesystem rules do not apply.")
	line("- Claude Code's auto-updater is off (DISABLE_AUTOUPDATER=1): its installation is read-only here, and the host's claude updates itself.")
	line("")
	line("More access needs the user to restart claudebox:")
	line("")
	line("- an environment variable: `claudebox --env NAME`")
	line("- files outside the project: `claudebox --ro-bind PATH` (or `--bind PATH` to write)")
	return []byte(b.String())
}
