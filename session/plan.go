package session

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/sandboxmd"
	"github.com/claudebox/claudebox/sshagent"
)

// plan is a launch's preparation after the probe: the settings and what
// the probe read of the host made into the plan and the session that runs
// it. It reads nothing of the host and has no effect (TestPlanReadsNothing):
// --dry-run and --check call it freely.
func plan(o Options, set settings, f probe.Launch) (*Session, error) {
	if o.Eval != nil {
		return planEval(o, set, f)
	}
	home, stateDir, conf := o.Home.Dir, o.Home.State, set.conf
	command, err := programs(o, f)
	if err != nil {
		return nil, err
	}
	if len(f.Host.Symlinked) > 0 {
		return nil, hint.Errorf("replace each link with a copy of what it points to (for .git/hooks, set core.hooksPath instead)",
			"%s is a symlink: the sandbox could replace the link itself, and the host would then run or obey what it put there", f.Host.Symlinked[0])
	}
	if len(f.Host.Redirects) > 0 {
		return nil, resolveError(f.Host.Redirects[0])
	}
	if f.Host.GitDirCrowded != "" {
		return nil, hint.Errorf("remove what you do not keep there (ls -a "+f.Host.GitDirCrowded+"); if you did not put it there, the sandbox may have, to push a file of yours past those it hides",
			"%s holds more than %d entries that are not git's own, which the sandbox would see as they are", f.Host.GitDirCrowded, probe.MaxGitDirEntries)
	}
	if f.Host.WorktreesCrowded != "" {
		return nil, hint.Errorf("git worktree prune removes the records of worktrees whose checkout is gone (ls "+f.Host.WorktreesCrowded+"); if you did not make them, the sandbox may have, to push a worktree's reflog past those claudebox reads for a token",
			"%s holds more than %d entries, more than claudebox reads the reflogs of", f.Host.WorktreesCrowded, probe.MaxWorktrees)
	}
	ssh, err := userSSHAgent(conf, f.SSH)
	if err != nil {
		return nil, err
	}
	gpg, err := gpgAgent(conf.WithGPG, f.GPG)
	if err != nil {
		return nil, err
	}
	run := f.Agent
	cred, api, err := credential(o, run, conf, f)
	if err != nil {
		return nil, err
	}
	var agentConf *mount.AgentConfig
	if !o.Shell {
		agentConf, command = agentConfig(home, run, conf, command, f.AgentConfig)
	}
	var inlineLeftOut map[string][]string
	if !o.Shell && run.IsClaude() {
		var args []string
		args, inlineLeftOut = inlineJSONKept(command[1:])
		command = append(command[:1:1], args...)
	}
	runFiles := newRunStem(stateDir, set.project.Root)
	sshSocket := ""
	if ssh != nil {
		sshSocket = runFiles + agentExt
	}
	// The sandbox's gpg-agent is claudebox's filter of the user's
	// (startGPGAgent), on a socket among the run files.
	var gpgInside *mount.GPGAgent
	if gpg != nil {
		inside := *gpg
		inside.Socket = runFiles + gpgExt
		gpgInside = &inside
	}
	var relay *mount.Relay
	if conf.Network == config.NetworkFiltered {
		relay = &mount.Relay{Socket: runFiles + sockExt, Forward: conf.Forward, Publish: conf.Publish}
		conf.Hosts.Allow = append(conf.Hosts.Allow, forwardRules(conf.Forward)...)
	}
	conf.Limits.Cgroup = f.Cgroup != nil
	p := mount.Build(mount.Inputs{
		Home:     home,
		StateDir: stateDir,
		Project:  set.project,
		Cwd:      set.cwd,
		Host:     f.Host,
		Env:      mount.Env{Names: set.env.Names, From: set.env.SetFrom(), Lines: set.env.Lines},
		Network:  conf.Network == config.NetworkHost,
		Exe:      f.Exe,
		Relay:    relay,
		SSHAgent: sshSocket,
		// A directory of its own: a session writes and removes it.
		DirCopies:   dirCopiesAt(runFiles, f.RuntimeDir),
		GPGAgent:    gpgInside,
		Command:     command,
		Claude:      !o.Shell && run.IsClaude(),
		ClaudeState: claudeState(),
		Binds:       conf.Binds,
		API:         api,
		CA:          f.CA.Files,
		Caches:      cachesDir(stateDir, set.project.Root, conf.NoCaches),
		Agent:       agentConf,
		Limits:      conf.Limits,
		GPU:         f.GPU,

		ProjectSockets: conf.ProjectSockets,
		DesktopSockets: conf.DesktopSockets,
	})
	// bwrap takes at most maxBwrapArgs arguments: a session that planted
	// what each needs a mount for (submodules' git directories by the
	// hundred, each holding entries that are not git's own) would have
	// every later launch fail in bwrap.
	if n := len(p.Args()) + 1; n > maxBwrapArgs {
		dir := mostMounted(p)
		return nil, hint.Errorf("remove what you do not keep there (ls -a "+dir+"); if you did not put it there, the sandbox may have, to stop every later launch",
			"the sandbox would take %d arguments to bwrap, more than the %d it takes; most of its mounts are for what lies in %s", n, maxBwrapArgs, dir)
	}
	p.AddSandboxMD(string(sandboxmd.Render(p)))
	s := &Session{
		bwrap: f.Bwrap, shell: o.Shell, args: o.Args, landlock: f.Landlock, home: home, stateDir: stateDir, runFiles: runFiles, plan: p, env: set.env, additions: set.additions, unapproved: set.unapproved,
		legacy: conf.Legacy, reportOnly: conf.ReportOnly, clipboard: conf.Clipboard, desktopSockets: conf.DesktopSockets, exportDir: conf.ExportDir, readMounts: o.ReadMounts, cred: cred, hosts: conf.Hosts,
		mcp: set.servers, claudeJSON: set.mcp.claudeJSON, agentMCP: set.agentMCP, leftOutMCP: set.leftOut, skipped: append(conf.Skipped, f.CA.LeftOut...), portsNote: portsNote(conf), caPEM: f.CA.PEM, agent: run, refuseEnv: conf.RefuseEnv, sshAgent: ssh,
		probedWorktrees: f.Worktrees, linked: f.Linked,
		cgroup: f.Cgroup, noCgroup: f.NoCgroup, hostname: f.Hostname,
	}
	if gpg != nil {
		s.gpgconf, s.gpgSocket, s.gpgFilter = f.GPG.Conf, gpg.Socket, gpgInside.Socket
	}
	for flag, names := range inlineLeftOut {
		s.leaveOut("claude "+flag, names)
	}
	if agentConf != nil {
		for path := range agentConf.Data {
			s.leaveOut(path, agentConf.LeftOut)
		}
	}
	return s, nil
}

// planEval is an eval run's plan: the host's system and the claude to
// run, the run's own ~/.claude and workspace.
func planEval(o Options, set settings, f probe.Launch) (*Session, error) {
	switch {
	case f.Bwrap == "":
		return nil, hint.Errorf("install bubblewrap, e.g. sudo apt-get install bubblewrap", "bwrap not found on PATH")
	case f.Command == "":
		return nil, hint.Errorf("install Claude Code: npm install -g @anthropic-ai/claude-code, or name it with --claude PATH", "claude not found on PATH")
	case !f.Runnable:
		return nil, hint.Errorf("name an executable claude with --claude PATH", "%s is not an executable file", f.Command)
	case f.Provider != "":
		return nil, hint.Errorf("unset "+f.Provider+" for the eval run", "eval runs reach Anthropic's API through claudebox's proxy, not a cloud provider's (%s is set)", f.Provider)
	case f.ExeErr != nil:
		return nil, exeError(f.ExeErr)
	}
	e, conf := o.Eval, set.conf
	cred, api, err := credential(o, agent.Claude, conf, f)
	if err != nil {
		return nil, err
	}
	runFiles := newRunStem(o.Home.State, "")
	in := mount.Inputs{
		Home: o.Home.Dir, StateDir: o.Home.State, Host: f.Host,
		// Where the system configuration's private copies are written
		// (PHP's settings): without it, a relative path.
		DirCopies: dirCopiesAt(runFiles, f.RuntimeDir),
		Env:       mount.Env{Names: set.evalEnv},
		Network:   conf.Network == config.NetworkHost,
		Exe:       f.Exe,
		Command:   append([]string{f.Command}, o.Args...),
		Eval:      &e.Eval,
		SetEnv:    e.SetEnv,
		API:       api,
		Limits:    conf.Limits,
	}
	if conf.Network == config.NetworkFiltered {
		in.Relay = &mount.Relay{Socket: e.Socket}
	}
	return &Session{
		agent: agent.Claude, bwrap: f.Bwrap, landlock: f.Landlock, home: o.Home.Dir, stateDir: o.Home.State, runFiles: runFiles,
		plan: mount.Build(in), env: set.env, hosts: conf.Hosts, cred: cred, caPEM: f.CA.PEM,
	}, nil
}

// programs is the command to run inside, claude (or bash) with the
// arguments, once bwrap and it were found.
func programs(o Options, f probe.Launch) ([]string, error) {
	if f.Bwrap == "" {
		return nil, hint.Errorf("install bubblewrap, e.g. sudo apt-get install bubblewrap", "bwrap not found on PATH")
	}
	if f.Command == "" {
		if o.Shell {
			return nil, hint.Errorf("install bash", "bash not found on PATH")
		}
		a := agentOf(o)
		return nil, hint.Errorf(a.Install, "%s not found on PATH", a.Program)
	}
	if f.ExeErr != nil {
		return nil, exeError(f.ExeErr)
	}
	return append([]string{f.Command}, o.Args...), nil
}

// sshAgent is the user's SSH agent as --with-ssh passes it on: its
// socket (SSH_AUTH_SOCK), and what the sandbox may do with it.
type sshAgent struct {
	upstream string
	rules    sshagent.Rules
	// note says why the agent signs no login, if it signs none.
	note string
}

// userSSHAgent is the user's agent for --with-ssh, whose socket must be
// one; nil without the flag.
func userSSHAgent(conf config.Launch, found probe.SSHAgent) (*sshAgent, error) {
	if !conf.WithSSH {
		return nil, nil
	}
	startAgent := "start an agent and add your key: eval \"$(ssh-agent)\" && ssh-add; or launch with --with-ssh=false"
	if found.Socket == "" {
		return nil, hint.Errorf(startAgent, "--with-ssh: SSH_AUTH_SOCK is not set")
	}
	if !found.IsSocket {
		return nil, hint.Errorf(startAgent, "--with-ssh: SSH_AUTH_SOCK=%s is not a socket", found.Socket)
	}
	// A login is signed only to a server the allow list names with its
	// port, whose host key known_hosts lists.
	servers := conf.Hosts.Exact()
	hostKeys := sshagent.KnownHostKeys(found.KnownHosts, servers)
	a := &sshAgent{upstream: found.Socket, rules: sshagent.Rules{Keys: conf.SSHKeys, Users: conf.SSHUsers, HostKeys: hostKeys}}
	if len(hostKeys) == 0 {
		a.note = "--with-ssh: your known_hosts has no host key of a server the allow list names with its port (" + strings.Join(servers, ", ") +
			"), so the agent signs no SSH login there; connect once from the host to add one (ssh -T git@github.com)"
	}
	return a, nil
}

// gpgAgent is what --with-gpg forwards, as the host's gpg would: the
// agent's extra socket and the keyring beside it. gpgconf starts the agent
// at the launch (startGPGAgent): preparing starts nothing, --dry-run
// included.
func gpgAgent(withGPG bool, found probe.GPG) (*mount.GPGAgent, error) {
	switch {
	case !withGPG:
		return nil, nil
	case found.Conf == "":
		return nil, hint.Errorf("install GnuPG (e.g. sudo apt-get install gnupg), or launch with --with-gpg=false", "--with-gpg: gpgconf not found on PATH")
	case found.ListErr != nil:
		return nil, hint.Errorf("check your GnuPG installation: gpgconf --list-dirs", "--with-gpg: gpgconf --list-dirs failed: %v", found.ListErr)
	case found.Agent == nil:
		return nil, hint.Errorf("enable it: remove no-extra-socket from gpg-agent.conf", "--with-gpg: gpg-agent has no restricted (extra) socket")
	}
	return found.Agent, nil
}

// credential is the credential the supervisor's proxy holds for Claude:
// none with no network or a cloud provider's own; with no login there is
// nothing to start, but for a shell or --check's trial.
func credential(o Options, a agent.Agent, conf config.Launch, f probe.Launch) (*proxy.Credential, *mount.API, error) {
	if !a.IsClaude() && !o.Shell && conf.Network != config.NetworkNone {
		return agentCredential(o, a, f.Credential)
	}
	if conf.Network == config.NetworkNone || f.Provider != "" {
		return nil, nil, nil
	}
	switch {
	case f.Credential != nil:
		return f.Credential, &mount.API{Variable: f.Credential.Kind.Variable(), Source: f.Credential.Source, Address: mount.ClaudeAPIAddress}, nil
	case !o.Shell && !o.OnlyApproved:
		return nil, nil, noLogin()
	}
	return nil, nil, nil
}

// agentCredential is another agent's login for the proxy, as the probe
// found it: its API key, else its own OAuth login (Codex's ChatGPT login,
// Gemini's Google login), which the proxy refreshes on the host.
func agentCredential(o Options, a agent.Agent, cred *proxy.Credential) (*proxy.Credential, *mount.API, error) {
	switch {
	case cred != nil && cred.Kind.Variable() == "":
		return cred, &mount.API{Login: filepath.Join("~", a.ConfigDir, a.LoginFile), Source: cred.Source, Address: a.AddressVariable()}, nil
	case cred != nil:
		return cred, &mount.API{Variable: cred.Kind.Variable(), Source: cred.Source, Address: a.AddressVariable()}, nil
	case o.OnlyApproved:
		return nil, nil, nil
	}
	if a.LoginFile != "" {
		return nil, nil, hint.Errorf("log in on the host first: run "+a.Program+" there",
			"no %s login on the host (%s): %s inside the sandbox could not reach its API", a.Name, filepath.Join("~", a.ConfigDir, a.LoginFile), a.Name)
	}
	return nil, nil, hint.Errorf("log "+a.Name+" in on the host, or export "+a.Key.Variable()+" there",
		"no %s login on the host: %s inside the sandbox could not reach its API", a.Name, a.Name)
}

// claudeState are the paths in the instance of Claude's per-project
// state (agent.Claude.State).
func claudeState() []string {
	var dirs []string
	for _, s := range agent.Claude.State {
		dirs = append(dirs, filepath.Join(instance.AgentsDir, agent.Claude.Name, s))
	}
	return dirs
}

// agentConfig is what the plan shows of another agent's configuration, as
// the probe read it; nil for Claude (and a shell), whose is always there.
// a is the row as it runs with the host's login (ForHost). The agent's
// arguments go before the user's.
func agentConfig(home string, a agent.Agent, conf config.Launch, command []string, found *mount.AgentConfig) (*mount.AgentConfig, []string) {
	if a.IsClaude() {
		return nil, command
	}
	url := mount.APIURL
	if conf.Network == config.NetworkHost {
		url = mount.HostAPIURL
	}
	_, args := a.Resolved(home, url)
	return found, append(append([]string{command[0]}, args...), command[1:]...)
}

// exeError says claudebox cannot run itself as the sandbox's first
// process.
func exeError(err error) error {
	return hint.Errorf("check that /proc is mounted and that claudebox's own file is still in place", "cannot find claudebox's own executable, the sandbox's first process: %v", err)
}

// cachesDir is the project's tool caches' directory, "" when turned off.
func cachesDir(stateDir, root string, off bool) string {
	if off {
		return ""
	}
	return instance.CachesDir(stateDir, root)
}

// maxBwrapArgs is the most arguments bwrap takes, its own name included
// (bubblewrap's MAX_ARGS).
const maxBwrapArgs = 9000

// mostMounted is the deepest directory below which more than half of the
// plan's mounts lie.
func mostMounted(p mount.Plan) string {
	below := map[string]int{}
	for _, m := range p.Mounts {
		for d := filepath.Dir(m.Dest); ; d = filepath.Dir(d) {
			below[d]++
			if d == "/" || d == "." {
				break
			}
		}
	}
	most := "/"
	for d, n := range below {
		if 2*n > len(p.Mounts) && len(d) > len(most) {
			most = d
		}
	}
	return most
}
