// Package mount builds the sandbox's mount plan: one ordered value from which
// the bwrap argv, --dry-run and SANDBOX.md are all derived.
package mount

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// Kind is a bwrap mount operation.
type Kind string

const (
	RoBind Kind = "--ro-bind"
	// RoBindTry skips a source that vanished since the probe (the host's
	// claude may be saving it at that moment).
	RoBindTry Kind = "--ro-bind-try"
	Bind      Kind = "--bind"
	Symlink   Kind = "--symlink"
	Tmpfs     Kind = "--tmpfs"
	Proc      Kind = "--proc"
	Dev       Kind = "--dev"
	// BindData and RoBindData mount a private copy of Src (empty when Src
	// is ""), passed to bwrap on a file descriptor: writes to it never
	// reach the host.
	BindData   Kind = "--bind-data"
	RoBindData Kind = "--ro-bind-data"
	// File writes a copy of Src, passed on a file descriptor, into a
	// tmpfs of the sandbox's: no mount, where each bind mount makes bwrap
	// read the mount table again for it and for every later one.
	File Kind = "--file"
)

// Mount is one entry of the plan. For Symlink, Src is the link's target.
type Mount struct {
	Kind Kind
	Src  string
	Dest string
	// Content is what a data mount without Src holds ("" for empty).
	Content string
	// Checked is the file a data mount's Src was when the probe checked
	// it: the launch copies that file or none.
	Checked untrusted.FileID
	// Why is the reason for the entry, shown by --dry-run.
	Why string
	// placeholder says Dest does not exist on the host: the launch creates
	// a stand-in for bwrap to mount over (see guard.CreatePlaceholder), and the
	// last session guarding it removes it.
	placeholder bool
	// made says Dest does not exist on the host: the launch makes it an
	// empty directory, kept (Guard.MakeDir).
	made bool
	// executable: a data mount bwrap makes mode 0555 (the git wrapper, a
	// hook's script).
	executable bool
	// ownerOnly: a tmpfs bwrap makes mode 0700 (~/.gnupg, whose other
	// modes gpg warns of at every run; a private directory over a
	// stand-in, Guard.Private).
	ownerOnly bool
	// ownText: Content is claudebox's own text (the git wrapper, a
	// stand-in, a phantom login), which --dry-run prints. Any other
	// content came from the user's files and may hold what the sandbox is
	// given on purpose (a carried MCP server's token), which --dry-run,
	// meant to be pasted, never prints.
	ownText bool
	// Role is what the mount is for.
	Role Role
}

// Role is what a mount is for: SANDBOX.md describes the sandbox by it, not
// by where Build happens to put each mount.
type Role int

const (
	// Private: the sandbox's own /proc, /dev and tmpfs.
	Private Role = iota
	// HostFiles: host paths shown as they are: the system directories, DNS,
	// the git configuration, a command installed under $HOME and the links
	// on the way to it, SSH's known hosts.
	HostFiles
	// ClaudeConfig: ~/.claude rebuilt (the real one's entries, the private
	// copies, the instance, the history, the login) and ~/.claude.json.
	ClaudeConfig
	// ProjectTree: the checkout. GitDir: a git directory outside it.
	ProjectTree
	GitDir
	// Protection: a guard, or a directory pinned so that one stays put.
	Protection
	// Tools: a PATH entry's toolchain.
	Tools
	// Agent: the user's SSH agent.
	Agent
	// Requested: what the user's --bind and --ro-bind show.
	Requested
	// Caches: the project's tool caches.
	Caches
	// AgentFiles: another agent CLI's configuration directory rebuilt, and
	// its state in the instance.
	AgentFiles
)

// writable reports whether the sandbox can write through the mount to the
// host (a private tmpfs or copy does not count).
func (m Mount) writable() bool { return m.Kind == Bind }

// Plan is everything the sandbox is made of.
type Plan struct {
	Mounts []Mount
	// DirCopies are the private copies of directories the session writes
	// before bwrap binds them (Src), and removes after.
	DirCopies []DirCopyAt
	// Home is $HOME, inside and out.
	Home string
	// Env lists the names of the variables passed in; values are looked up
	// at exec time and never stored here, so nothing that prints a plan can
	// print a secret.
	Env []string
	// envSetBy says where the value of a variable whose value is not the
	// host's was set.
	envSetBy map[string]envSource
	// Chdir is the working directory inside.
	Chdir string
	// Project is the project the sandbox is for.
	Project project.Project
	// Instance is the per-project state directory on the host.
	Instance string
	// sandboxMD is where SANDBOX.md is read inside the sandbox.
	sandboxMD string
	// claudeFlagFiles are the files claude's own --settings and
	// --mcp-config name, whose copies keep what is known harmless.
	claudeFlagFiles []FlagFile
	// appendPrompt is the user's own appended prompt file, which
	// SANDBOX.md carries after its facts.
	appendPrompt *Prompt
	// Hostname is the sandbox's own name, "" for the host's: a session
	// started beside another of its project (SeatHostname).
	Hostname string
	// Network says whether the sandbox shares the host's network.
	Network bool
	// Relay, on the filtered network, is the way out of the sandbox's own.
	Relay *Relay
	// SSHAgent says the user's SSH agent is reachable inside, through
	// claudebox's filter, at SSHAgentSocket.
	SSHAgent bool
	// GPGAgent says the user's gpg-agent is reachable inside, at
	// ~/.gnupg/S.gpg-agent.
	GPGAgent bool
	// API is how Claude reaches its API; nil without the proxy.
	API *API
	// Agent is the agent CLI run when it is not Claude.
	Agent *AgentConfig
	// Command runs inside: claude and its arguments, or a shell.
	Command []string
	// SetEnv are variables with the value the launch fixes (Inputs.SetEnv).
	SetEnv []string
	// Guards are the protected paths inside the writable mounts.
	Guards []Guard
	// Binds are the extra mounts the user asked for, as asked; Hidden, the
	// secrets inside them (and inside claudebox's own mounts) that stay
	// hidden.
	Binds  []BindSpec
	Hidden []Hidden
	// CredentialsLeftOut names what the private copies of the user's git
	// configuration and of plugin marketplaces' files leave out.
	CredentialsLeftOut []string
	// Toolchains are the PATH entries under $HOME shown read-only, with
	// what their programs need; PathProblems, those that cannot work.
	Toolchains   []Toolchain
	PathProblems []PathProblem
	// Caches are the project's tool caches, those mounted and those not.
	Caches []Cache
	// Unprotected is what the host obeys that no guard can protect: the
	// launch and --check warn of it.
	Unprotected []Unprotected
	// Unshown is what the user's Claude Code setup names that is not
	// shown inside: the launch names it once, --dry-run each time.
	Unshown []Unshown
	// HookOutputs are Host.HookOutputs: the launch names them once.
	HookOutputs []HookOutput
	// EtcLeftOut are Host.EtcLeftOut, each with the copies shown in it:
	// --dry-run names them.
	EtcLeftOut []string
	// ClaudeHidden are Host.ClaudeHidden: the launch names them once,
	// --dry-run each time.
	ClaudeHidden []string
	// ObeyedNames are Host.ObeyedNames.
	ObeyedNames []string
	// Limits bound what the sandbox may take of the host.
	Limits limits.Limits
	// GPU is what --with-gpu shows; nil without it.
	GPU *GPU
	// ProjectSockets is Inputs.ProjectSockets, DesktopSockets
	// Inputs.DesktopSockets.
	ProjectSockets, DesktopSockets bool
}

// Env is what the plan knows of the variables passed in: their names, in
// order, and where the value of each one set by an env file or --env was
// set; never a value, which stays in package environment.
type Env struct {
	Names []string
	// From names the file that set a variable's value ("" for --env
	// NAME=VALUE), for each variable whose value was set; Lines marks
	// those whose file is one NAME=VALUE per line.
	From  map[string]string
	Lines map[string]bool
}

// DirCopyAt is a DirCopy and where the session writes it.
type DirCopyAt struct {
	Src  string
	Copy DirCopy
}

// Inputs are everything a plan is built from.
type Inputs struct {
	Home     string
	StateDir string // ~/.claudebox
	Project  project.Project
	Cwd      string // the working directory, symlinks resolved
	Host     Host
	Env      Env
	Network  bool
	// Exe is claudebox's own executable on the host, the sandbox's first
	// process.
	Exe string
	// Relay is the filtered network's: nil on the host's or none.
	Relay *Relay
	// SSHAgent is the socket of the supervisor's filter of the user's SSH
	// agent, with --with-ssh.
	SSHAgent string
	// DirCopies is where the session writes Host.ClaudeDirCopies and
	// Host.EtcDirCopies, one directory each, named by its index.
	DirCopies string
	// GPGAgent is what --with-gpg forwards; nil without it.
	GPGAgent *GPGAgent
	// API is how Claude reaches its API through the session's proxy; nil
	// when there is no proxy.
	API *API
	// Command is the program to run inside with its arguments. When Claude
	// is the program, Build adds the SANDBOX.md flag.
	Command []string
	Claude  bool
	// ClaudeState are the entries of ~/.claude kept per project: each a
	// directory's path in the instance, under the agents' directory that
	// no sandbox's view of the instance shows, bound at its name.
	ClaudeState []string
	// Agent is the agent CLI run when it is not Claude.
	Agent *AgentConfig
	// Binds are the user's extra mounts, checked by bind.Check.
	Binds []BindSpec
	// CA are the CA bundles the host's variables name that pass in.
	CA []CAFile
	// Caches is the project's tool caches' directory (instance.CachesDir);
	// "" when they are turned off.
	Caches string
	// Eval, for an eval run, replaces ~/.claude and the project with the
	// run's own (see Eval).
	Eval *Eval
	// SetEnv are NAME=VALUE pairs the launch fixes whatever the host says,
	// shown as they are.
	SetEnv []string
	// Limits bound what the sandbox may take of the host.
	Limits limits.Limits
	// GPU is what --with-gpu shows; nil without it.
	GPU *GPU
	// ProjectSockets is the user's --with-project-sockets: the command
	// may make Unix sockets in the project, and the host's servers'
	// there are not hidden. DesktopSockets is --with-desktop-sockets: it
	// may connect to the host's abstract ones.
	ProjectSockets, DesktopSockets bool
}

// API is what the sandbox is told of the session's proxy. The launch sets
// ANTHROPIC_BASE_URL to the proxy and Variable to a per-session phantom
// credential; the real one, found at Source, stays outside.
type API struct {
	// Variable holds the phantom inside; Login, instead, the file that
	// does (a login that is a file, as Codex's ChatGPT login).
	Variable string
	Login    string
	Source   string
	// Address is the variable that points the agent at the proxy, when
	// one does ("" when its arguments do).
	Address string
}

// ClaudeAPIAddress is the variable that points Claude Code at the proxy.
const ClaudeAPIAddress = "ANTHROPIC_BASE_URL"

// SSHAgentSocket is where --with-ssh puts the filter of the user's SSH
// agent inside.
const SSHAgentSocket = "/run/claudebox/ssh-agent.sock"

// Files inside an instance directory.
const (
	SandboxMDFile = "SANDBOX.md"
	// HistoryFile is the instance's prompt history: prompts typed in one
	// project are not readable from another.
	HistoryFile = "history.jsonl"
)

// Build makes the plan. Order matters: bwrap applies mounts left to right
// and a later mount hides what an earlier one put at the same path, so the
// real ~/.claude comes first and the per-project overlays after it, and
// each mount nested in another comes after it.
func Build(in Inputs) Plan {
	inst := project.InstanceDir(in.StateDir, in.Project.Root)
	p := Plan{
		Home:      in.Home,
		Env:       in.Env.Names,
		Chdir:     in.Cwd,
		Project:   in.Project,
		Instance:  inst,
		sandboxMD: filepath.Join(in.Home, ".claude", SandboxMDFile),
		Network:   in.Network,
		Limits:    in.Limits,

		ProjectSockets: in.ProjectSockets,
		DesktopSockets: in.DesktopSockets,
	}
	p.addSystem(in.Host, in.DirCopies)
	var beside string
	if in.Eval == nil {
		beside = p.besideProject(in.Project, in.Host.Binds, in.Host.Own)
	}
	if beside != "" {
		p.add(Private, Tmpfs, "", beside, "the project's folder, empty and read-only (but for the mounts in it): git worktree add or git clone beside the project fails at once, not lost at exit")
	}
	// The user's binds come before claudebox's own mounts inside $HOME,
	// which they never overlap (bind.Check, bind.Layout).
	p.Mounts = append(p.Mounts, in.Host.Binds...)
	p.Binds, p.Hidden, p.CredentialsLeftOut = in.Binds, in.Host.Hidden, in.Host.CredentialsLeftOut
	if in.Eval != nil {
		p.Instance = ""
		p.addEval(in.Eval)
	} else {
		p.addClaudeConfig(in.Host, inst, in.DirCopies, in.ClaudeState)
		if in.Agent != nil {
			p.Agent = in.Agent
			p.addAgentConfig(in.Agent, inst)
		}
	}
	p.Mounts = append(p.Mounts, in.Host.Own...)
	for _, f := range in.Host.ClaudeFlagFiles {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Src: f.Src, Dest: f.Path, Checked: f.ID, Role: HostFiles, Why: "the file claude's " + f.Flag + " names, a private copy of what is known harmless"})
		p.claudeFlagFiles = append(p.claudeFlagFiles, f)
	}
	for _, sc := range in.Host.Scripts {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: sc.Path, Content: sc.Content, executable: true, Role: HostFiles, Why: sc.What + ", read-only, a private copy of what the launch read"})
	}
	p.add(Private, RoBind, in.Exe, inside.Exe, "claudebox itself: the sandbox's first process, which runs the command as the terminal's foreground job (and on the filtered network is its relay)")
	if in.Relay != nil {
		p.Relay = in.Relay
		p.Mounts = append(p.Mounts, relayMount(in.Relay))
	}
	p.Toolchains, p.PathProblems = in.Host.Toolchains, in.Host.PathProblems
	if in.SSHAgent != "" {
		p.SSHAgent = true
		p.add(Agent, Bind, in.SSHAgent, SSHAgentSocket, "your SSH agent through claudebox's filter (--with-ssh): its keys list and sign, never readable; adding, removing and locking keys refused")
		if in.Host.KnownHosts != "" {
			p.add(HostFiles, RoBind, in.Host.KnownHosts, in.Host.KnownHosts, "SSH host keys, so ssh can verify the server; ~/.ssh is otherwise hidden")
		}
		p.Mounts = append(p.Mounts, in.Host.SSHFiles...)
		p.CredentialsLeftOut = append(p.CredentialsLeftOut, in.Host.SSHLeftOut...)
	}
	if in.GPGAgent != nil {
		p.GPGAgent = true
		p.addGPG(in.GPGAgent)
	}
	if in.GPU != nil {
		p.addGPU(in.GPU)
	}
	p.addCAs(in.CA)
	p.addLinks(in.Host.Links)
	if in.Caches != "" {
		p.addCaches(in.Caches, append([]string{in.Project.Checkout}, in.Project.GitDirs...))
	}
	if in.Eval == nil {
		p.addProject(in.Project, in.Host)
		p.hideInProject(in.Host.ProjectHidden)
		if !in.ProjectSockets {
			p.hideServerSockets(in.Host.ServerSockets)
		}
		if in.Project.CommonDir != "" {
			p.addWorktrees(in.Project.Checkout, in.Claude)
		}
	}
	p.hideUsersOwn(in.Host.UsersOwn)
	if slices.Contains(in.Host.System, HostPath{Path: "/usr"}) {
		p.hideUsrLocal(in.Host.UsrLocalHidden)
	}
	if slices.Contains(in.Host.System, HostPath{Path: Etc}) {
		p.add(Private, RemountRO, "", Etc, "read-only from here on")
	}
	if in.Host.UsrLocalEtc && slices.Contains(in.Host.System, HostPath{Path: "/usr"}) {
		p.add(Private, RemountRO, "", UsrLocalEtc, "read-only from here on")
	}
	if beside != "" {
		p.add(Private, RemountRO, "", beside, "read-only from here on")
	}
	p.SetEnv = in.SetEnv
	if in.Claude {
		// Its "move to background and exit" would leave a session that
		// the sandbox's end tears down, and nothing could attach to.
		// Its exit line names the program that resumes the session, else
		// claude with the launch's flags (--append-system-prompt-file
		// ~/.claude/SANDBOX.md), which on the host finds no conversation.
		p.SetEnv = append(slices.Clone(p.SetEnv), "CLAUDE_CODE_DISABLE_BG_EXIT_HANDOFF=1", "CLAUDE_CODE_RESUME_HINT_COMMAND=claudebox")
	}
	for name, file := range in.Env.From {
		if p.envSetBy == nil {
			p.envSetBy = map[string]envSource{}
		}
		p.envSetBy[name] = envSource{file: file, lines: in.Env.Lines[name]}
	}
	if in.API != nil {
		// No login is mounted: the credential the sandbox holds is the
		// proxy's phantom, in the environment.
		p.API = in.API
		p.Env = slices.Clone(p.Env)
		if in.API.Address != "" {
			p.Env = append(p.Env, in.API.Address)
		}
		if in.API.Variable != "" {
			p.Env = append(p.Env, in.API.Variable)
		}
	}
	p.Command = in.Command
	if in.Claude {
		args := in.Command[1:]
		if in.Host.AppendPrompt != nil {
			p.appendPrompt = in.Host.AppendPrompt
			args = withoutFlag(args, AppendPromptFlag)
		}
		p.Command = append([]string{in.Command[0], AppendPromptFlag, p.sandboxMD}, args...)
	}
	p.etcCopiesAsFiles()
	p.Mounts = devicesLast(p.Mounts)
	return p
}

// etcCopiesAsFiles writes the private copies in /etc (gitconfig, npmrc,
// pip.conf, environment, nix/nix.conf) and in /usr/local/etc (npmrc)
// into their tmpfs, which is made read-only once every mount in it is
// made, as /etc's shown files are, rather than binding each: bwrap reads
// the whole mount table again at every bind. Only where that tmpfs is
// what the copy would be bound into: one over a file or directory bound
// from the host stays a mount.
func (p *Plan) etcCopiesAsFiles() {
	for _, root := range []string{Etc, UsrLocalEtc} {
		if !slices.ContainsFunc(p.Mounts, func(m Mount) bool { return m.Kind == RemountRO && m.Dest == root }) {
			continue
		}
		for i, m := range p.Mounts {
			if m.Kind != RoBindData || m.executable || m.placeholder || m.Dest == root || !paths.Within(m.Dest, root) {
				continue
			}
			for _, under := range slices.Backward(p.Mounts[:i]) {
				if paths.Within(m.Dest, under.Dest) {
					if under.Kind == Tmpfs && under.Dest == root {
						p.Mounts[i].Kind = File
					}
					break
				}
			}
		}
	}
}

// devicesLast moves the sandbox's own /proc and /dev, with every mount
// made in them (the GPU's devices), after the rest but the read-only
// remounts that end the list, in their order: bwrap reads the whole mount
// table again at every bind, and their dozen mounts, made first, were
// read again at each of the binds after them.
func devicesLast(ms []Mount) []Mount {
	end := len(ms)
	for end > 0 && ms[end-1].Kind == RemountRO {
		end--
	}
	var rest, devices []Mount
	for _, m := range ms[:end] {
		if paths.Within(m.Dest, "/proc") || paths.Within(m.Dest, "/dev") {
			devices = append(devices, m)
		} else {
			rest = append(rest, m)
		}
	}
	return slices.Concat(rest, devices, ms[end:])
}

func (p *Plan) add(r Role, k Kind, src, dest, why string) {
	p.Mounts = append(p.Mounts, Mount{Kind: k, Src: src, Dest: dest, Why: why, Role: r})
}

// addSystem mounts the system directories, the sandbox's own /proc, /dev
// and /tmp, DNS's configuration and the private $HOME.
func (p *Plan) addSystem(h Host, dirCopies string) {
	for _, d := range h.System {
		switch {
		case d.Link != "":
			p.add(HostFiles, Symlink, d.Link, d.Path, "system path, as on the host")
		case d.Path == Etc:
			p.addEtc(h, dirCopies)
		default:
			p.add(HostFiles, RoBind, d.Path, d.Path, "system path, read-only")
		}
		if d.Path == "/usr" && d.Link == "" && h.UsrLocalEtc {
			// /etc's twin for what is installed under /usr/local: the
			// settings files the tools read there are private copies
			// (Own), the rest is not known harmless (Docker's PHP images
			// keep php.ini and its conf.d there, a database's password in
			// them).
			p.add(Private, Tmpfs, "", UsrLocalEtc, "hidden, empty: the configuration of what is installed under /usr/local, not known to hold no secret")
		}
		if d.Path == "/nix" && d.Link == "" && h.NixVar {
			// A read-only mount does not stop connect(): through the Nix
			// daemon's socket the sandbox would build, with the network
			// of a fixed-output derivation, outside the sandbox.
			p.add(Private, Tmpfs, "", NixVar, "hidden, empty: the Nix daemon's socket and the store's database; only the profiles are shown")
			if h.NixProfiles {
				p.add(HostFiles, RoBind, NixProfiles, NixProfiles, "the Nix profiles (where ~/.nix-profile leads), read-only")
			}
		}
	}
	p.add(Private, Proc, "", "/proc", "the sandbox's own processes only")
	p.add(Private, Dev, "", "/dev", "minimal devices")
	p.add(Private, Tmpfs, "", "/tmp", "private /tmp")
	if h.ResolvConf != "" {
		p.add(HostFiles, RoBind, h.ResolvConf, h.ResolvConf, "target of /etc/resolv.conf, for DNS")
	}
	p.add(Private, Tmpfs, "", p.Home, "private $HOME: the rest of the home directory is hidden")
}

// addEtc shows of /etc only the entries of EtcShown, in an empty /etc of
// the sandbox's (made read-only once every mount in it is made): what is
// not known harmless there (a share's password in fstab, a cluster's
// admin kubeconfig) is not shown, whatever its mode. Its private copies of
// directories are written in dirCopies.
func (p *Plan) addEtc(h Host, dirCopies string) {
	p.add(Private, Tmpfs, "", Etc, "the system's configuration, empty but for what the tools inside read and is known to hold no secret")
	for _, e := range h.Etc {
		switch {
		case e.Link != "":
			p.add(HostFiles, Symlink, e.Link, e.Path, "system configuration, a link as on the host")
		case e.Checked != (untrusted.FileID{}):
			p.Mounts = append(p.Mounts, Mount{Kind: File, Src: e.Path, Dest: e.Path, Checked: e.Checked, Role: HostFiles, Why: "system configuration, a copy"})
		default:
			p.add(HostFiles, RoBind, e.Path, e.Path, "system configuration, read-only")
		}
	}
	for i, c := range h.EtcDirCopies {
		src := filepath.Join(dirCopies, "etc"+strconv.Itoa(i))
		p.DirCopies = append(p.DirCopies, DirCopyAt{Src: src, Copy: c})
		p.add(HostFiles, RoBind, src, c.Path, "system configuration, a private copy of what is known harmless in it")
	}
	// A directory left out may hold a settings file shown as a private
	// copy (nix/nix.conf): said beside it.
	for _, rel := range h.EtcLeftOut {
		var copies []string
		for _, m := range h.Own {
			if in, err := filepath.Rel(filepath.Join(Etc, rel), m.Dest); err == nil && in != "." && filepath.IsLocal(in) {
				copies = append(copies, filepath.Join(rel, in))
			}
		}
		if len(copies) > 0 {
			rel += " (but " + strings.Join(copies, ", ") + ", a private copy)"
		}
		p.EtcLeftOut = append(p.EtcLeftOut, rel)
	}
}

// hideUsersOwn hides what of /etc only the user's uid or groups may read
// (after every other mount, so that none shows it again, and so that the
// descriptors of the private copies keep their numbers whoever runs).
func (p *Plan) hideUsersOwn(own []HostEntry) {
	for _, e := range own {
		if e.Dir {
			p.add(Private, Tmpfs, "", e.Path, "hidden, empty: only your user or your groups may enter it, not every user")
		} else {
			p.add(Private, RoBindData, "", e.Path, "hidden, empty: only your user or your groups may read it, not every user")
		}
	}
}

// hideInProject hides the credential stores and the state that lie in
// the project, over its mount and the guards in it: a bind would have
// left them out.
func (p *Plan) hideInProject(hidden []HostEntry) {
	for _, e := range hidden {
		if e.Dir {
			p.add(Private, Tmpfs, "", e.Path, "hidden, empty: a credential store or Claude Code's or claudebox's state, which your home leads into the project")
		} else {
			p.add(Private, RoBindData, "", e.Path, "hidden, empty: a credential store or Claude Code's or claudebox's state, which your home leads into the project")
		}
	}
}

// hideServerSockets hides each socket a server of the host's listens on
// in the project under an empty file: a read-only mount does not stop
// connect(), and the server answers the sandbox as it answers the user (a
// host tmux server with its socket at .run/tmux.sock ran the command the
// sandbox's tmux -S .run/tmux.sock run-shell sent it, on the host). The
// file is a mount point, which the sandbox can neither rename nor remove.
func (p *Plan) hideServerSockets(socks []string) {
	for _, s := range socks {
		p.add(Private, RoBindData, "", s, "hidden, empty: a socket a server of yours listens on in the project, which would answer the sandbox as it answers you (--with-project-sockets lets it through)")
	}
}

// hideUsrLocal hides what of /usr/local is not known harmless (after
// every other mount, as hideUsersOwn, so that the descriptors of the
// private copies keep their numbers whatever /usr/local holds).
func (p *Plan) hideUsrLocal(hidden []HostEntry) {
	for _, e := range hidden {
		if e.Dir {
			p.add(Private, Tmpfs, "", e.Path, "hidden, empty: what an administrator put at /usr/local's top beside what is installed, a git directory, or a directory not looked through whole for credentials")
		} else {
			p.add(Private, RoBindData, "", e.Path, "hidden, empty: no program on the PATH (not executable, or a script with a credential written in it), what an administrator put at /usr/local's top beside what is installed, or a file named as credentials are kept or with one written in it")
		}
	}
}

// UsrLocal is where an administrator installs by hand: the sandbox is
// shown its programs and the directories of what is installed there.
const UsrLocal = "/usr/local"

// NixVar is Nix's state beside the store; NixProfiles, the profiles in
// it that the sandbox is shown.
const (
	NixVar      = "/nix/var"
	NixProfiles = "/nix/var/nix/profiles"
)

// UsrLocalEtc is the configuration of what is installed under
// /usr/local, hidden as what of /etc is not known harmless is.
const UsrLocalEtc = "/usr/local/etc"

// addClaudeConfig rebuilds ~/.claude from the real one's entries rather
// than binding it whole: the host's claude runs or obeys what is there, and
// Claude Code writes lock directories beside its files (history.jsonl.lock),
// which a read-only bind would refuse. What it creates stays in the tmpfs.
// The instance inst holds this project's sessions and history.
func (p *Plan) addClaudeConfig(h Host, inst, dirCopies string, state []string) {
	claudeDir := filepath.Join(p.Home, ".claude")
	projects := filepath.Join(claudeDir, "projects")
	p.add(ClaudeConfig, Tmpfs, "", claudeDir, "~/.claude, private: what the sandbox creates here is lost at exit")
	for _, d := range h.ClaudeFrozen {
		p.add(ClaudeConfig, Tmpfs, "", d, "the real ~/.claude's "+filepath.Base(d)+" as the launch found it: what the host adds during the session is not shown")
	}
	for _, e := range h.ClaudeEntries {
		p.add(ClaudeConfig, RoBindTry, e, e, "the real ~/.claude's "+filepath.Base(e)+", read-only")
	}
	for i, c := range h.ClaudeDirCopies {
		src := filepath.Join(dirCopies, strconv.Itoa(i))
		p.DirCopies = append(p.DirCopies, DirCopyAt{Src: src, Copy: c})
		p.add(ClaudeConfig, RoBind, src, c.Path, "the real ~/.claude's "+filepath.Base(c.Path)+", a private copy of what the launch read: what the host clones or writes there during the session is not shown")
	}
	for _, l := range h.ClaudeLinks {
		p.add(ClaudeConfig, Symlink, l.Link, l.Path, "a link in the real ~/.claude, as it is")
	}
	for _, d := range h.ClaudeFrozen {
		p.add(ClaudeConfig, RemountRO, "", d, "read-only, as the host's")
	}
	for _, o := range h.HookOutputs {
		if o.Dir {
			p.add(ClaudeConfig, Tmpfs, "", o.Path, "empty and private: your hooks write here (the host's is not shown), lost at exit")
		}
	}
	for _, c := range h.ClaudeCopies {
		p.Mounts = append(p.Mounts, Mount{Kind: BindData, Src: c.Src, Dest: c.Path, Checked: c.ID, Role: ClaudeConfig, Why: "a private copy: Claude Code can save it, the host's file stays as it is"})
	}
	p.add(ClaudeConfig, Bind, inst, projects, "this project's instance: sessions isolated per project")
	// Files the launch reads or binds from the instance are pinned (mounted
	// on their own path), so the sandbox cannot swap them for symlinks.
	p.add(ClaudeConfig, RoBind, filepath.Join(inst, project.RootFile), filepath.Join(projects, project.RootFile), "claudebox's own, read-only")
	p.add(ClaudeConfig, Tmpfs, "", filepath.Join(projects, project.AgentsDir), "the other agents' state and configuration, hidden: no session reads another agent's copy of its configuration, or swaps what its sessions bind")
	history := filepath.Join(inst, HistoryFile)
	p.add(ClaudeConfig, Bind, history, filepath.Join(projects, HistoryFile), "this project's prompt history, pinned")
	p.add(ClaudeConfig, Bind, history, filepath.Join(claudeDir, HistoryFile), "this project's prompt history: other projects' prompts are not visible")
	for _, s := range state {
		p.add(ClaudeConfig, Bind, filepath.Join(inst, s), filepath.Join(claudeDir, filepath.Base(s)), "this project's Claude Code "+filepath.Base(s)+": other projects' are not visible")
	}
	// Each session's own (AddSandboxMD): a file in the instance would be
	// rewritten by one launch while another's bwrap binds it.
	p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: p.sandboxMD, Role: ClaudeConfig, Why: "this session's sandbox facts, where CLAUDE.md's @SANDBOX.md import reads them"})
	p.add(ClaudeConfig, Symlink, filepath.Join(projects, project.ClaudeJSONFile), filepath.Join(p.Home, ".claude.json"),
		"Claude Code's state file, kept per instance (it saves by rename)")
}

// addLinks recreates the links on the way to the command and the PATH's
// entries, where no mount has put them already.
func (p *Plan) addLinks(links []HostPath) {
	for _, l := range links {
		// A link inside a mounted directory is there already, and bwrap
		// refuses to make one where a file exists.
		if !slices.ContainsFunc(p.Mounts, func(m Mount) bool {
			return m.Dest == l.Path || m.Kind != Tmpfs && m.Kind != Symlink && paths.Within(l.Path, m.Dest)
		}) {
			p.add(HostFiles, Symlink, l.Link, l.Path, "a link on the way to a program, as on the host")
		}
	}
}

// addProject mounts the project writable, then what protects the host
// inside it: the pins, then the guards, each after the mount it lies in.
func (p *Plan) addProject(project project.Project, h Host) {
	p.add(ProjectTree, Bind, project.Checkout, project.Checkout, "the project, read-write")
	for _, d := range project.GitDirs {
		p.add(GitDir, Bind, d, d, "the repository's git directory, so git works in this worktree")
	}
	rebound := map[string]bool{}
	for _, g := range h.Guards {
		for _, d := range g.Writable {
			rebound[d] = g.Exists
		}
	}
	for _, d := range h.Pins {
		if !rebound[d] {
			p.add(Protection, Bind, d, d, "pinned: it cannot be renamed away from the protection inside it")
		}
	}
	for _, g := range h.Guards {
		p.Mounts = append(p.Mounts, g.Mount())
		if g.Exists {
			for _, d := range g.Writable {
				p.add(Protection, Bind, d, d, "writable in the read-only "+g.Path)
			}
		}
		for _, f := range g.Saved {
			p.add(Protection, BindData, "", filepath.Join(g.Path, f), g.Why+": absent, the sandbox saves "+f+" to a private copy")
		}
		if len(g.Saved) > 0 {
			// Else git inside would offer the copies for a commit, which
			// the host's checkout would then lack.
			p.Mounts = append(p.Mounts, Mount{
				Kind: RoBindData, Dest: filepath.Join(g.Path, ".gitignore"), Content: "*\n", Role: Protection, ownText: true,
				Why: "git inside ignores the private copies in the stand-in",
			})
		}
	}
	for _, r := range h.Reflogs {
		if r.Dir {
			p.add(Protection, Tmpfs, "", r.Path, "the branches' reflogs, shown empty: more of them than claudebox reads for a credential a URL in them holds; git inside writes its own, discarded at the end")
			continue
		}
		p.Mounts = append(p.Mounts, Mount{
			Kind: BindData, Dest: r.Path, Content: r.Content, Role: Protection,
			Why: "a private copy of the reflog without the credential a URL in it holds (git pull https://user:TOKEN@…): git inside appends to the copy, discarded at the end",
		})
	}
	for _, e := range h.GitNotOwn {
		if e.Dir {
			p.add(Protection, Tmpfs, "", e.Path, "shown empty: not git's own, or a remote's URL, in the git directory, which may hold a credential")
		} else {
			p.add(Protection, RoBindData, "", e.Path, "shown empty: not git's own, or a remote's URL, in the git directory, which may hold a credential")
		}
	}
	for _, hook := range h.HooksHidden {
		if hook.Dir {
			p.add(Protection, Tmpfs, "", hook.Path, "your git hooks, empty: more of them than claudebox reads for a credential")
		} else {
			p.add(Protection, RoBindData, "", hook.Path, "your git hook, empty: a credential is written in it")
		}
	}
	p.Guards, p.Unprotected, p.ObeyedNames, p.Unshown, p.HookOutputs = h.Guards, h.Unprotected, h.ObeyedNames, h.Unshown, h.HookOutputs
	p.ClaudeHidden = h.ClaudeHidden
	if script := gitWrapper(project.Checkout, h.Guards); script != "" {
		p.Mounts = append(p.Mounts, Mount{
			Kind: RoBindData, Dest: gitWrapperDir + "/git", Content: script, executable: true, Role: Private, ownText: true,
			Why: "git, first on PATH: a checkout, merge or pull that cannot change a protected file fails with a message instead of exiting 0",
		})
	}
}

// Placeholders lists the mounts whose target the launch creates as a
// stand-in and removes after the session.
func (p Plan) Placeholders() []Mount {
	var ms []Mount
	for _, m := range p.Mounts {
		if m.placeholder {
			ms = append(ms, m)
		}
	}
	return ms
}

// MadeDirs lists the directories the launch makes, kept, for bwrap to
// bind (Guard.MakeDir).
func (p Plan) MadeDirs() []string {
	var dirs []string
	for _, m := range p.Mounts {
		if m.made {
			dirs = append(dirs, m.Dest)
		}
	}
	return dirs
}

// namespaceArgs isolate everything but the network, which the user's
// Claude needs to reach its API. The user namespace is the guard watcher's
// (sessionArgs).
var namespaceArgs = []string{
	"--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
	"--die-with-parent",
}

// SeatHostname is the sandbox's name for the session at seat
// (instance.TakeSeat) on the host named host: the host's own for the
// first, the host's with "-2", "-3"... for one started beside it.
// Claude Code keys the record of a start in the project's ~/.claude.json
// by pid and hostname, and every sandbox's claude is pid 2: a session
// started beside another named alike took the other's start, pending,
// for its own that died, and fell back to the classic renderer. Sessions
// one after another keep one name, so that a start that did die still
// reads as the next session's own.
func SeatHostname(host string, seat int) string {
	if seat == 0 {
		return ""
	}
	suffix := "-" + strconv.Itoa(seat+1)
	label, domain, _ := strings.Cut(host, ".")
	// A label holds 63 bytes at most, a name 64.
	label = label[:min(len(label), 63-len(suffix))]
	name := label + suffix
	if domain != "" {
		name += "." + domain
	}
	return name[:min(len(name), 64)]
}

// EtcHosts is the hosts file, which the sandbox gets as a copy.
const EtcHosts = "/etc/hosts"

// NamedInHosts is the hosts file hosts with name (SeatHostname) given
// the loopback address Debian gives a host's own name: the host's name
// resolves on the host, and a tool that looks its own name up (hostname
// -f; Java's InetAddress.getLocalHost throws) failed on a name nothing
// resolved.
func NamedInHosts(hosts []byte, name string) []byte {
	if len(hosts) > 0 && hosts[len(hosts)-1] != '\n' {
		hosts = append(hosts, '\n')
	}
	return append(hosts, "127.0.1.1\t"+name+"\n"...)
}

// seccompFD is the first descriptor a child inherits beyond stdio: the
// seccomp filter's; the data mounts' contents follow in order.
const seccompFD = 3

// fd is the descriptor of the i-th thing bwrap reads (0: the filter).
func (p Plan) fd(i int) int { return seccompFD + i }

// RelayHandoff is the descriptor, after the data mounts', on which the
// relay hands its listeners out (-1 without a relay): bwrap leaves it
// open for the sandbox's first process, which closes it.
func (p Plan) RelayHandoff() int {
	if p.Relay == nil {
		return -1
	}
	return p.fd(len(p.DataMounts()) + 1)
}

// sessionArgs join the user namespace of claudebox's guard watcher, report
// the sandbox's pid and wait, before running the command, until the guards
// are watched. Their descriptors follow the data mounts' and the relay's
// handoff.
func (p Plan) sessionArgs() []string {
	n := p.fd(len(p.DataMounts()) + 1)
	if p.Relay != nil {
		n++
	}
	return []string{"--userns", strconv.Itoa(n), "--info-fd", strconv.Itoa(n + 1), "--block-fd", strconv.Itoa(n + 2)}
}

// ClaudeFlag is the flag of claude's that names the file the data mount
// at dest copies (--settings, --mcp-config), "" when none does.
func (p Plan) ClaudeFlag(dest string) string {
	for _, f := range p.claudeFlagFiles {
		if f.Path == dest {
			return f.Flag
		}
	}
	return ""
}

// DataMounts lists the data mounts in the order of their descriptors,
// after the filter's; a Src of "" stands for empty content.
func (p Plan) DataMounts() []Mount {
	var ms []Mount
	for _, m := range p.Mounts {
		if m.Kind == BindData || m.Kind == RoBindData || m.Kind == File {
			ms = append(ms, m)
		}
	}
	return ms
}

// Args is the bwrap argv (without argv[0]) that realises the plan.
func (p Plan) Args() []string {
	var args []string
	for _, line := range p.argLines() {
		args = append(args, line...)
	}
	return args
}

// argLines is Args grouped as --dry-run prints it: one mount per line.
func (p Plan) argLines() [][]string {
	lines := [][]string{namespaceArgs, p.sessionArgs()}
	if p.Hostname != "" {
		lines = append(lines, []string{"--hostname", p.Hostname})
	}
	if !p.Network {
		lines = append(lines, []string{"--unshare-net"})
	}
	lines = append(lines, []string{"--seccomp", strconv.Itoa(p.fd(0))})
	data := 0
	for _, m := range p.Mounts {
		switch {
		case m.Kind == Tmpfs && m.ownerOnly:
			lines = append(lines, []string{"--perms", "0700", string(m.Kind), m.Dest})
		case m.Kind == Tmpfs && m.placeholder:
			// A stand-in directory is not writable, so that a write under
			// it (the Write tool creating .vscode/launch.json) fails when
			// it is made rather than succeeding into a tmpfs the session
			// discards. EACCES, not a read-only mount's EROFS: on EACCES
			// Claude Code saves a file that exists in place, so a missing
			// .claude's settings copies inside still take its saves.
			lines = append(lines, []string{"--perms", "0555", string(m.Kind), m.Dest})
		case m.Kind == Proc, m.Kind == Dev, m.Kind == Tmpfs, m.Kind == RemountRO:
			lines = append(lines, []string{string(m.Kind), m.Dest})
		case m.Kind == BindData, m.Kind == RoBindData, m.Kind == File:
			data++
			line := []string{string(m.Kind), strconv.Itoa(p.fd(data)), m.Dest}
			switch {
			case m.executable:
				line = append([]string{"--perms", "0555"}, line...)
			case m.Kind == File:
				line = append([]string{"--perms", "0444"}, line...)
			}
			lines = append(lines, line)
		default:
			lines = append(lines, []string{string(m.Kind), m.Src, m.Dest})
		}
	}
	lines = append(lines, []string{"--chdir", p.Chdir})
	command := firstCommand(p.Relay, p.RelayHandoff(), p.Limits, p.NoSockets(), p.DesktopSockets, p.Command)
	return append(lines, append([]string{"--"}, command...))
}

// NoSockets are the directories no socket is made in or below: the
// project and its git directories, where a host client may be pointed at
// one (a PGHOST, a DOCKER_HOST, git's fsmonitor) and would talk to the
// sandbox's listener, and every other host directory the sandbox writes
// (its instance, its caches, a --bind), where a link in the project can
// lead the client: /proc/self/mountinfo names their host paths. Not the
// agents' sockets bound in, which the sandbox connects to. None where
// the user lets sockets be made in the project, where one then leads no
// further than one made there.
func (p Plan) NoSockets() []string {
	if p.ProjectSockets {
		return nil
	}
	dirs := append([]string{p.Project.Checkout}, p.Project.GitDirs...)
	for _, m := range p.Mounts {
		if m.Kind == Bind && m.Role != Agent && !paths.UnderAny(m.Dest, dirs) {
			dirs = append(dirs, m.Dest)
		}
	}
	return dirs
}

// Script renders the exact command a launch execs, one mount per line,
// shell-quoted so it can be pasted. The environment is written as references
// to the caller's variables, never as values. Comment lines first say what
// the launch passes on descriptors.
func (p Plan) Script(bwrap string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# fd %d: seccomp filter (no TIOCSTI or TIOCLINUX, no new user namespaces)\n", p.fd(0))
	for i, m := range p.DataMounts() {
		what := "empty"
		switch {
		case m.Content != "" && m.ownText:
			what = "holding " + strconv.Quote(m.Content)
		case m.Content != "":
			what = fmt.Sprintf("not shown (%d bytes): %s", len(m.Content), m.Why)
		}
		if m.Src != "" {
			what = "copy of " + m.Src
		}
		if m.Dest == p.sandboxMD {
			what = "SANDBOX.md, this session's facts, rendered from this plan"
			if p.appendPrompt != nil {
				what += ", then the prompt file of your " + AppendPromptFlag + ", " + p.appendPrompt.Path
			}
		}
		fmt.Fprintf(&b, "# fd %d: %s\n", p.fd(1+i), printable.Escape(what))
	}
	n := p.fd(len(p.DataMounts()) + 1)
	if h := p.RelayHandoff(); h >= 0 {
		fmt.Fprintf(&b, "# fd %d: the network relay hands its listeners inside to claudebox on it\n", h)
		n++
	}
	fmt.Fprintf(&b, "# fd %d: the user namespace of claudebox's guard watcher; fd %d: bwrap reports the sandbox's pid; fd %d: bwrap waits until the guards are watched\n", n, n+1, n+2)
	if p.API != nil {
		address := p.API.Address
		if address == "" {
			address = "its arguments"
		}
		fmt.Fprintf(&b, "# %s, %s: set by the launch, not shown: its proxy's address on 127.0.0.1 and a phantom credential for this session only; the proxy puts the real one (%s) in its place\n",
			address, p.API.Variable+p.API.Login, printable.Escape(p.API.Source))
	}
	if p.Relay != nil {
		for _, line := range p.Relay.PortLines() {
			fmt.Fprintf(&b, "# %s\n", line)
		}
	}
	for _, name := range p.Env {
		src, ok := p.envSetBy[name]
		switch {
		case ok && src.file == "":
			fmt.Fprintf(&b, "# %s: the value given with --env %s=…, not shown\n", name, name)
		case ok && !src.lines:
			fmt.Fprintf(&b, "# %s: the value set in %s, not shown\n", name, printable.Escape(src.file))
		}
	}
	for _, t := range p.Toolchains {
		for _, r := range t.Roots {
			fmt.Fprintf(&b, "# %s: %s\n", r.Path, r.Why)
		}
	}
	for _, c := range p.Caches {
		if c.Skipped != "" {
			fmt.Fprintf(&b, "# %s: not this project's cache: %s\n", c.Dest, printable.Escape(c.Skipped))
		}
	}
	for _, pp := range p.PathProblems {
		fmt.Fprintf(&b, "# PATH entry %s does not work inside: %s\n", pp.Entry, pp.Reason)
	}
	for _, u := range p.Unprotected {
		fmt.Fprintf(&b, "# not protected: %s\n", printable.Escape(u.From+": "+u.Reason))
	}
	for _, u := range p.Unshown {
		fmt.Fprintf(&b, "# not shown: %s\n", printable.Escape(u.String()))
	}
	for _, o := range p.HookOutputs {
		fmt.Fprintf(&b, "# not shown, your hooks write it: %s (inside, theirs is private and lost at exit)\n", printable.Escape(o.Path))
	}
	if len(p.EtcLeftOut) > 0 {
		fmt.Fprintf(&b, "# not shown, of /etc (not known harmless, nor read by the tools inside): %s\n", printable.Escape(strings.Join(p.EtcLeftOut, " ")))
	}
	for _, e := range p.ClaudeHidden {
		fmt.Fprintf(&b, "# not shown: %s (not Claude Code's configuration, nor named by your settings)\n", printable.Escape(e))
	}
	for _, n := range p.ObeyedNames {
		fmt.Fprintf(&b, "# set aside at the end if written: every %s in the project that sets more than an application's own settings, or more than NAME=value lines (the host's tools that load a .env, gemini, direnv's dotenv, docker compose, pipenv, bun, take it into their environment)\n", n)
	}
	for _, h := range p.Hidden {
		fmt.Fprintf(&b, "# %s\n", printable.Escape(h.String()))
	}
	for _, e := range p.CredentialsLeftOut {
		fmt.Fprintf(&b, "# left out of the private copies inside, as not known to hold no credential: %s\n", printable.Escape(e))
	}
	p.scriptEnv(&b)
	b.WriteString(" \\\n  " + Quote(bwrap))
	for _, words := range p.argLines() {
		b.WriteString(" \\\n    ")
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(Quote(w))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// envSource is where a variable's value was set: file is "" for --env
// NAME=VALUE; lines says file has one NAME=VALUE per line, so a shell can
// read the value back.
type envSource struct {
	file  string
	lines bool
}

// Quote quotes s for a POSIX shell when it needs it. A string with control
// characters (printable.IsControl) is written $'…', with those as \x
// escapes of their bytes, so that the script is exact and prints safely.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	if printable.Escape(s) == s {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == utf8.RuneError && size == 1, printable.IsControl(r):
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

// AppendPromptFlag is claude's flag that appends a file to its system
// prompt; passed twice, only its last file counts.
const AppendPromptFlag = "--append-system-prompt-file"

// withoutFlag is args without flag and its value, in both spellings,
// before "--".
func withoutFlag(args []string, flag string) []string {
	var kept []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--":
			return append(kept, args[i:]...)
		case args[i] == flag && i+1 < len(args):
			i++
		case !strings.HasPrefix(args[i], flag+"="):
			kept = append(kept, args[i])
		}
	}
	return kept
}
