// Package sandboxmd writes SANDBOX.md: the facts of the sandbox, for Claude,
// derived from the same mount plan that builds it.
package sandboxmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	limitspkg "github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
)

// Render returns SANDBOX.md for plan. It states facts, briefly: Claude
// reads it at the start of every session.
func Render(p mount.Plan) []byte {
	var w page
	for _, section := range []func(*page, mount.Plan){
		intro, alsoWritable, requested, toolchains, pathProblems, protected, gitOperations,
		claudeDir, caches, beside, privateTmpfs, sockets, readOnly, hidden, variables, network, api, sshAgent, gpgAgent, gpu, limits, moreAccess,
	} {
		section(&w, p)
	}
	return []byte(w.String())
}

// page is SANDBOX.md as it is written, a line at a time.
type page struct{ strings.Builder }

func (w *page) line(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }

// intro is the title and the project.
func intro(w *page, p mount.Plan) {
	w.line("# Sandbox")
	w.line("")
	w.line("This session runs inside claudebox, a bubblewrap sandbox. Facts:")
	w.line("")
	w.line("- Project: %s (read-write, but for the protected paths below). Working directory: %s.", p.Project.Checkout, p.Chdir)
	if p.Project.Root != p.Project.Checkout {
		w.line("- Project root (history key): %s.", p.Project.Root)
	}
}

// alsoWritable names the git directories outside the project.
func alsoWritable(w *page, p mount.Plan) {
	rw := dests(p, func(m mount.Mount) bool { return m.Role == mount.GitDir })
	if len(rw) > 0 {
		w.line("- Also writable: %s. Changes there persist on the host.", strings.Join(rw, ", "))
	}
	if p.Project.GitDir != "" && p.Instance != "" {
		w.line("- Undo: claudebox kept the project's files as this session found them (tracked and untracked, not ignored ones); the user can put them back with `claudebox --undo` on the host. Git history is not part of it.")
	}
}

// requested lists the user's binds, and the secrets left out of them.
func requested(w *page, p mount.Plan) {
	if len(p.Binds) == 0 {
		return
	}
	var binds []string
	for _, b := range p.Binds {
		binds = append(binds, describeBind(b, p.Mounts))
	}
	w.line("- Mounted at the user's request: %s.", strings.Join(binds, "; "))
	var left []string
	for _, h := range p.Hidden {
		if !h.Own {
			left = append(left, h.Path)
		}
	}
	if len(left) > 0 {
		w.line("  Left out of them: %s (secrets).", strings.Join(left, ", "))
	}
}

// describeBind says where a user's bind is, how it may be used, and where
// it comes from.
func describeBind(b mount.BindSpec, mounts []mount.Mount) string {
	what := b.Dest + " (read-only"
	if b.Writable {
		what = b.Dest + " (read-write: changes persist on the host"
		var ro []string
		for _, m := range mounts {
			if m.Role == mount.Requested && m.Kind == mount.RoBind && paths.Within(m.Dest, b.Dest) {
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
	return what + ")"
}

func toolchains(w *page, p mount.Plan) {
	if len(p.Toolchains) == 0 {
		return
	}
	var entries []string
	for _, t := range p.Toolchains {
		var roots []string
		for _, r := range t.Roots {
			roots = append(roots, r.Path)
		}
		entries = append(entries, t.Entry+" ("+strings.Join(roots, ", ")+")")
	}
	w.line("- The toolchains on PATH, read-only (their programs run; install or update them on the host): %s.", strings.Join(entries, "; "))
}

func pathProblems(w *page, p mount.Plan) {
	for _, pp := range p.PathProblems {
		w.line("- PATH entry %s does not work here: %s.", pp.Entry, pp.Reason)
	}
}

// protected lists the guards, by how each is kept: read-only, a private
// copy, or absent; a private folder (Guard.Private) is the sandbox's own.
func protected(w *page, p mount.Plan) {
	var locked, private, absent, copies []string
	for _, g := range p.Guards {
		name := g.Path
		if rel, err := filepath.Rel(p.Project.Checkout, g.Path); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		if g.From != "" {
			name += " (the host obeys it through " + g.From + ")"
		}
		for _, f := range g.Saved {
			private = append(private, filepath.Join(name, f))
		}
		switch m := g.Mount(); {
		case g.Private:
			// The sandbox's own folder, written freely: nothing to say.
		case g.Exists && g.GitConfig:
			copies = append(copies, name)
		case m.Kind == mount.Tmpfs || m.Kind == mount.RoBindData:
			absent = append(absent, name)
		case m.Kind == mount.BindData:
			private = append(private, name)
		default:
			locked = append(locked, name)
		}
	}
	if len(p.Guards) > 0 {
		w.line("- Protected, because the host runs or obeys them (git hooks and config, editor, shell and Claude Code settings):")
	}
	if len(locked) > 0 {
		w.line("  read-only: %s;", strings.Join(locked, ", "))
	}
	if len(copies) > 0 {
		w.line("  read-only, %s: %s;", mount.GitConfigCopy, strings.Join(copies, ", "))
	}
	if len(private) > 0 {
		w.line("  private to this session (saves work, the host's file is unchanged): %s;", strings.Join(private, ", "))
	}
	if len(absent) > 0 {
		w.line("  cannot be created, nor anything written in them (permission denied: ask the user to create them on the host): %s.", strings.Join(absent, ", "))
	}
	for _, n := range p.ObeyedNames {
		w.line("- Every %s file you create or change, in any directory, that sets more than an application's own settings (PORT, DATABASE_URL, APP_*, VITE_*, …: a proxy, an API's base URL, NODE_OPTIONS, PATH), or holds a line other than a comment or NAME=value (a value quoted or plain, without $, backquotes or backslashes), is moved aside when the session ends (the host's tools that load a .env, gemini, direnv, docker compose, take it into their environment); the user gets it back after reading it. Tell the user when you change one.", n)
	}
}

// gitOperations says whether a git operation is in progress, whose state
// in .git is guarded, and that a command changing a protected file fails.
func gitOperations(w *page, p mount.Plan) {
	if slices.ContainsFunc(p.Guards, mount.Guard.GitOperation) {
		w.line("- A rebase, am, cherry-pick or revert is in progress: its state in .git is protected, because the host's git runs the commands its todo lists; it can only be continued or aborted on the host; ask the user to.")
	}
	if slices.ContainsFunc(p.Guards, func(g mount.Guard) bool { return g.Exists && g.From == "" }) {
		w.line("- git checkout, switch, merge, pull or reset cannot change a protected file: git here then fails with \"claudebox: git could not change <file>, which this sandbox protects; run \"git …\" on the host\". Ask the user to run that command on the host.")
		w.line("- git config cannot write git's configuration (the repository's, or the user's): git fails with \"could not write config file …: Device or resource busy\", because the host's git runs what it sets. A hook manager's install (husky's prepare in npm install) fails the same way. Ask the user to set it on the host.")
	}
}

// claudeDir says what ~/.claude holds, and which of its files are private
// copies.
func claudeDir(w *page, p mount.Plan) {
	w.line("- %s shows the host's configuration read-only (plugins, skills, agents, commands, hooks); other projects' sessions, todos and file history are not there. Writable: projects/ (this project's sessions only, instance %s), history.jsonl (this project's prompts). Anything else written there is private and lost at exit.", filepath.Join(p.Home, ".claude"), filepath.Base(p.Instance))
	copies := dests(p, func(m mount.Mount) bool { return m.Role == mount.ClaudeConfig && m.Kind == mount.BindData })
	for i, c := range copies {
		copies[i] = filepath.Base(c)
	}
	if len(copies) > 0 {
		w.line("  %s there: private copies, changes last for this session.", strings.Join(copies, ", "))
	}
}

// caches names the tool caches kept between the project's sessions.
func caches(w *page, p mount.Plan) {
	kept := dests(p, func(m mount.Mount) bool { return m.Role == mount.Caches && m.Kind == mount.Symlink })
	if len(kept) > 0 {
		w.line("- Tool caches, this project's own, kept between its sessions (not the host's, which are hidden): %s.", strings.Join(kept, ", "))
	}
}

// beside says that the project's folder is read-only, and where a
// worktree or a clone goes instead: in a repository, a worktree in the
// session's own folder of them, lost at its end but for its commits.
func beside(w *page, p mount.Plan) {
	// Its remount, not the first read-only one: /usr/local/etc's or a
	// plugin's directory in ~/.claude may come before it.
	folder := filepath.Dir(p.Project.Checkout)
	if !slices.ContainsFunc(p.Mounts, func(m mount.Mount) bool { return m.Kind == mount.RemountRO && m.Dest == folder }) {
		return
	}
	if slices.ContainsFunc(p.Mounts, func(m mount.Mount) bool { return m.Dest == mount.WorktreesDir }) {
		w.line("- %s, the folder holding the project, is read-only and empty but for the mounts in it: git worktree add or git clone beside the project fails. Clone inside the project, where it persists. A worktree goes in %s (EnterWorktree and a subagent's isolation: worktree make theirs there): it and git's record of it are this session's, lost when it ends; its commits stay on its branch in the repository. For a task on a branch of its own that outlives the session, suggest the user start `claudebox -w BRANCH` on the host, which makes its worktree beside the project.", folder, mount.WorktreesDir)
	} else {
		w.line("- %s, the folder holding the project, is read-only and empty but for the mounts in it: git worktree add or git clone beside the project fails. Make them inside the project (git worktree add .worktrees/NAME), where they persist; for a task on a branch of its own, suggest the user start `claudebox -w BRANCH` on the host, which makes its worktree beside the project.", folder)
	}
}

// privateTmpfs names the tmpfs the sandbox writes to and loses.
func privateTmpfs(w *page, p mount.Plan) {
	if homeBound(p) {
		w.line("- Private: /tmp is an empty tmpfs; what is written there, or in %s outside the mounts above, is lost when the session ends.", p.Home)
	} else {
		w.line("- Private: %s and /tmp are empty tmpfs; anything else written there is lost when the session ends.", p.Home)
	}
}

// sockets says where no socket can be bound (mount.Plan.NoSockets), and
// where one can: below /tmp where the project is not (else nowhere in
// /tmp itself, which is then on the way to it). Nothing where the user
// lets them be made.
func sockets(w *page, p mount.Plan) {
	if len(p.NoSockets()) == 0 {
		return
	}
	where := "/tmp"
	if paths.UnderAny(p.Project.Checkout, []string{"/tmp"}) {
		where = "/dev/shm"
	}
	w.line("- No Unix socket can be bound in %s or below, nor in the other host folders mounted writable here (~/.claude/projects, the tool caches, the user's binds), nor in the folders above (the home, and one made in it): the user's programs may connect to one in the project, or to one a link there leads to. Bind sockets in %s.", strings.Join(append([]string{p.Project.Checkout}, p.Project.GitDirs...), ", "), where)
}

// readOnly lists the host's files claudebox shows read-only (the
// toolchains and the user's binds have lines of their own), and the
// secrets hidden inside them.
func readOnly(w *page, p mount.Plan) {
	// Of /etc, its entries one by one would fill the page.
	ro := dests(p, func(m mount.Mount) bool {
		return m.Role == mount.HostFiles && m.Kind == mount.RoBind && !paths.Within(m.Dest, mount.Etc) || m.Kind == mount.Tmpfs && m.Dest == mount.Etc
	})
	if i := slices.Index(ro, mount.Etc); i >= 0 {
		ro[i] = mount.Etc + " (only what the tools read: users, name resolution, certificates, time zone, shells; the rest of the host's is not here)"
	}
	w.line("- Read-only: %s.", strings.Join(ro, ", "))
	var ownHidden []string
	for _, h := range p.Hidden {
		if h.Own {
			ownHidden = append(ownHidden, h.Path)
		}
	}
	if len(ownHidden) > 0 {
		w.line("- Hidden inside the read-only paths above (secrets): %s.", strings.Join(ownHidden, ", "))
	}
}

// hiddenPaths says what a host path not listed looks like inside: git's
// "repository '…' does not exist" of a local clone names no way out.
const hiddenPaths = " Such a path does not exist here (git clone of a repository outside the project says it \"does not exist\"): ask the user to restart with `claudebox --ro-bind PATH`."

func hidden(w *page, p mount.Plan) {
	if homeBound(p) {
		w.line("- Hidden: SSH keys, cloud credentials and the other secrets named above, other projects' histories, and every host path not listed here." + hiddenPaths)
	} else {
		w.line("- Hidden: the rest of the host's %s (SSH keys, cloud credentials, other projects and their histories) and every host path not listed here."+hiddenPaths, p.Home)
	}
}

func variables(w *page, p mount.Plan) {
	if len(p.Env) > 0 {
		w.line("- Environment variables passed in (names only): %s. All others were dropped.", strings.Join(p.Env, ", "))
	}
}

func network(w *page, p mount.Plan) {
	switch {
	case p.Network:
		w.line("- Network: shared with the host.")
	case p.Relay != nil:
		w.line("- Network: filtered. Own network namespace: no direct connection, no UDP, no DNS. The only way out is claudebox's proxy, at http://127.0.0.1:3128 (HTTPS_PROXY and HTTP_PROXY are set, so curl, git, npm, pip, go and cargo use it): HTTPS by CONNECT and plain HTTP, to the hosts the user allows. Anything else gets a 403 naming the host; only the user can allow more, on the host: `claudebox --allow-host HOST --live` in another terminal takes effect at once, without a restart.")
		for _, n := range p.Relay.Forward {
			w.line("- Forwarded port: 127.0.0.1:%d here reaches the host's own 127.0.0.1:%d (the user's `--forward %d`), without the proxy settings.", n, n, n)
		}
		for _, pub := range p.Relay.Publish {
			w.line("- Published port: a server listening here on 127.0.0.1:%d is reachable from the host at http://127.0.0.1:%d (the user's `--publish %s`).", pub.Inside, pub.Host, pub)
		}
		if len(p.Relay.Publish) == 0 {
			w.line("- No port is published: a server here is not reachable from the host; the user can restart with `claudebox --publish PORT`.")
		}
	default:
		w.line("- Network: none (own network namespace, loopback only).")
	}
}

func api(w *page, p mount.Plan) {
	if a := p.Agent; a != nil {
		var secrets []string
		for _, f := range a.Secrets {
			secrets = append(secrets, filepath.Base(f))
		}
		w.line("- %s: %s shows the host's configuration read-only (private copies of the files it saves); its login (%s) is not here. Its sessions and state are this project's only. Its own sandbox is off: %s; this sandbox confines its commands instead.",
			a.Name, a.Dir, strings.Join(secrets, ", "), a.SandboxOff)
		switch {
		case p.API != nil && p.API.Login != "":
			w.line("- %s's API: through claudebox's proxy outside the sandbox. %s here holds a phantom login for this session, worthless anywhere else; the user's real login is not in the sandbox, and is refreshed on the host. The proxy passes only its model calls.", a.Name, p.API.Login)
		case p.API != nil:
			w.line("- %s's API: through claudebox's proxy outside the sandbox. %s here is a phantom key for this session, worthless anywhere else; the user's real key is not in the sandbox. The proxy passes only its model calls.", a.Name, p.API.Variable)
		}
		return
	}
	if p.API != nil {
		w.line("- Claude's API: through claudebox's proxy outside the sandbox (ANTHROPIC_BASE_URL). %s here is a phantom credential for this session, worthless anywhere else; the user's real login or key is not in the sandbox. The proxy passes only the Messages API (/v1/messages, count_tokens, the model list).", p.API.Variable)
	}
}

func gpgAgent(w *page, p mount.Plan) {
	if p.GPGAgent {
		w.line("- GPG: the user's gpg-agent signs here (git commit -S works); the secret keys are not in the sandbox, and the agent refuses to export them.")
	}
}

func sshAgent(w *page, p mount.Plan) {
	switch {
	case p.SSHAgent && p.Relay != nil:
		w.line("- SSH: the user's SSH agent is at $SSH_AUTH_SOCK, for listing its keys and signing with them (a login only to a server allowed on its SSH port whose host key the user's known_hosts holds; adding, removing or locking keys is refused); the keys themselves are not readable (~/.ssh/config and the public keys are, read-only, where they exist). git over SSH goes through the proxy (GIT_SSH_COMMAND sets ssh's ProxyCommand to `/run/claudebox/claudebox --relay-connect %%h %%p`) to the hosts allowed on their SSH port: github.com:22 by default; another needs the user's `claudebox --allow-host HOST:22`. A plain `ssh` needs the same `-o ProxyCommand=...`.")
	case p.SSHAgent:
		w.line("- SSH: the user's SSH agent is at $SSH_AUTH_SOCK, for listing its keys and signing with them (git push over SSH works to the servers allowed on their SSH port, github.com:22 by default, whose host key the user's known_hosts holds; adding, removing or locking keys is refused); the keys themselves are not readable (~/.ssh/config and the public keys are, read-only, where they exist).")
	}
}

// limits are what every sandbox denies, whatever its plan; Claude Code's
// own, when it is the agent.
func limits(w *page, p mount.Plan) {
	w.line("- Host logins: the user's logins of other tools live in the hidden part of the home, so gh, glab, the cloud CLIs (aws, gcloud, az), docker and package registries are logged out here. When one says to log in, tell the user it is the sandbox, not their login: they can pass a token with `claudebox --env GH_TOKEN` (or the tool's own variable), or run the command on the host.")
	if p.Agent == nil {
		w.line("- Claude's login: the model calls go through claudebox's proxy, which adds the user's login on the host; this sandbox holds none. `/login` here cannot help (whatever it logs in is not what the proxy uses), nor `/logout` end the host's login. When the user ran `/login` here, asks to log in or switch accounts, or an API error says to run /login, tell them to run `claude /login` on the host, outside claudebox; the next request here uses it.")
		w.line("- IDE integration: off. Claude Code's IDE lock files (~/.claude/ide) are not shared, so /ide finds no IDE: nothing is wrong with the user's IDE or its extension.")
	}
	w.line("- Processes: own PID namespace; host processes are not visible. No new user namespaces (so no nested sandbox such as bwrap or Chromium's); no keystroke injection into the terminal.")
	if p.Limits != (limitspkg.Limits{}) {
		w.line("- Limits: %s. A fork that fails with \"Resource temporarily unavailable\" or an allocation that fails is this bound, not the machine: keep parallel jobs (make -j, test workers) within it; only the user can change it (`claudebox --pids N`, `--memory SIZE`, `--cpus N`).", p.Limits)
	}
	if p.Agent != nil {
		return
	}
	w.line("- Claude Code's own sandbox (settings sandbox.enabled) is off in the private copies of the settings files: it would need a nested bwrap. This sandbox confines Bash instead, with the mounts and network above; sandbox.network and sandbox.filesystem rules do not apply.")
	w.line("- Claude Code's auto-updater is off (DISABLE_AUTOUPDATER=1): its installation is read-only here, and the host's claude updates itself.")
}

// gpu says which GPU devices are here.
func gpu(w *page, p mount.Plan) {
	switch {
	case p.GPU == nil:
	case len(p.GPU.Devices) == 0:
		w.line("- GPU: asked for (--with-gpu), but the host has none this user can open: CUDA, ROCm and Vulkan find no device here, as on the host.")
	default:
		w.line("- GPU: the host's %s, with /sys read-only for the drivers to find them; the drivers' libraries are the host's (system directories). nvidia-smi, CUDA, ROCm and Vulkan work as on the host.", strings.Join(p.GPU.Devices, ", "))
	}
}

// moreAccess tells Claude how the user gives it more.
func moreAccess(w *page, _ mount.Plan) {
	w.line("")
	w.line("More access needs the user to restart claudebox:")
	w.line("")
	w.line("- an environment variable: `claudebox --env NAME`")
	w.line("- files outside the project: `claudebox --ro-bind PATH` (or `--bind PATH` to write)")
}

// dests are the destinations of the plan's mounts that match.
func dests(p mount.Plan, match func(mount.Mount) bool) []string {
	var out []string
	for _, m := range p.Mounts {
		if match(m) {
			out = append(out, m.Dest)
		}
	}
	return out
}

// homeBound: the user binds their home directory, so it is not a tmpfs.
func homeBound(p mount.Plan) bool {
	return slices.ContainsFunc(p.Binds, func(b mount.BindSpec) bool { return b.Dest == p.Home })
}
