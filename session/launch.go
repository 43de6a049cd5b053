// Package session is a launch's effects. Prepare reads the settings (the
// project, the configuration, the environment), probes the host once for
// what the plan must know of it (probe.Read) and builds the plan from
// those alone, touching nothing; Run then creates the
// instance and what the plan binds, runs bwrap as claudebox's child beside
// its guard watcher, and cleans up after the project's last session.
package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/hardlink"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/limits/cgroup"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/pty"
	"github.com/claudebox/claudebox/seccomp"
	"github.com/claudebox/claudebox/untrusted"
)

// Options are what the command line asks of a launch.
type Options struct {
	Home  Home
	Shell bool
	// Flags are the settings the command line gives; config files fill in
	// the rest.
	Flags config.Settings
	Args  []string
	// OnlyApproved leaves out what the user has not approved, instead of
	// asking: --check's trial runs only what a launch would without asking.
	OnlyApproved bool
	// ReadMounts reads the machine's mount table: a launch records which
	// mount holds the project, for --gc.
	ReadMounts func() gc.Mounts
	// Agent is the agent CLI to run (--agent); Claude when unset.
	Agent agent.Agent
	// Eval makes the launch an eval run's (Args are claude's): none of
	// the user's settings, no terminal (RunEval).
	Eval *EvalOptions
	// Launch says the session is to run (Run): its guard watcher starts
	// first, its runtime's start beside the probe, which leaves the
	// second processor mostly idle.
	Launch bool
}

// Session is a launch worked out before it touches anything.
type Session struct {
	// checkoutHold says a session runs in the checkout (HoldCheckout).
	checkoutHold *os.File
	// seat is the session's among the project's running ones
	// (TakeSeat), held until the supervisor exits; hostname, the host's
	// name, which the sandbox's is made from.
	seat     *os.File
	hostname string
	// probedWorktrees holds the repository's worktrees as the probe found
	// them until the stand-ins stand (instance.LockWorktrees).
	probedWorktrees *os.File
	// linked are the project's files the probe found hard-linked to files
	// outside it (copyLinked).
	linked []hardlink.Found
	// phases times the launch when CLAUDEBOX_TRACE=1 asks for it.
	phases *phases
	// launching is the guard watcher started for Run.
	launching *background[*guardwatch.Watcher]
	bwrap     string
	home      string
	stateDir  string
	// runFiles is the stem of the session's files in the run directory.
	runFiles string
	plan     mount.Plan
	env      environment.Env
	// additions lists what the project's files (and the bash-era env files)
	// add; unapproved, what of it the user has not approved for this
	// project.
	additions  []config.Item
	unapproved []config.Item
	approve    bool
	// shell: the sandbox runs a shell, not Claude.
	shell bool
	// trial: claudebox --check's trial runs claudebox's own commands, no
	// session: its end judges what they did, and leaves the last
	// session's record of its changes as it was.
	trial bool
	// noSession: the launch's sandbox never began its command (bwrap
	// failed, or a signal stopped the launch) and no other session ran in
	// its checkout: its end leaves the last session's record of its
	// changes as it was, and drops its own snapshot for --undo.
	noSession bool
	// args are the arguments the user gave the command.
	args []string
	// reportOnly: the exit audit names what it finds and moves nothing.
	reportOnly bool
	// movedAside is what the exit moved aside, for the record of the
	// session's changes (undo.NoteMovedAside).
	movedAside []audit.Moved
	// clipboard and desktopSockets are the user's opt-ins (see
	// config.Launch).
	clipboard      bool
	desktopSockets bool
	// landlock: bwrap starts in a scoped Landlock domain.
	landlock bool
	// exportDir is the inbox the project's sessions are exported to.
	exportDir string
	// first: no other session of the project runs; this one records what
	// the project holds for the exit audit, and snapshotting is closed
	// once that record is saved.
	first bool
	// firstInCheckout: no other session of the project runs in this
	// checkout, reached after the first session began (a worktree -w
	// made); this one records it for the exit audit.
	firstInCheckout bool
	snapshotting    chan struct{}
	// undo is the snapshot for --undo being taken, if one is.
	undo *undoTaking
	// record is the record this session took, once snapshotting closes:
	// the exit audit reads it here, not decoded again from its file.
	record *audit.Snapshot
	// legacy are the bash-era env files read, for their one-time notice.
	legacy []environment.File
	// mcp are the MCP server definitions carried into the sandbox's
	// claude.json; leftOutMCP, the names of those the host offers that
	// were not asked for.
	mcp        map[string]json.RawMessage
	leftOutMCP []string
	// claudeJSON is what the host's ~/.claude.json carries, read once for
	// the launch.
	claudeJSON instance.HostClaudeJSON
	// agentMCP names the servers of another agent's configuration carried
	// into its copy.
	agentMCP []string
	// copies are the private copies of files Claude Code saves.
	copies []*privateCopy
	// claudeDir is the sandbox's own ~/.claude, open from the supervisor,
	// so that what the session made there of Claude Code's configuration,
	// lost at exit, can be named.
	claudeDir *os.File
	// leftOutConfig names, by the file the host has, what the private
	// copies of the user's agent configuration left out (names only).
	leftOutConfig map[string][]string
	// skipped names the configured binds of paths that do not exist.
	skipped    []string
	readMounts func() gc.Mounts
	// cred is the user's Claude credential, which the session's proxy
	// puts in place of the sandbox's phantom; nil without a proxy (no
	// network, a cloud provider, or a shell with no login).
	cred  *proxy.Credential
	proxy *proxy.Proxy
	// hosts is what the filtered network lets through.
	hosts proxy.Policy
	// portsNote says why the ports asked for are not set up, if they are not.
	portsNote string
	// caPEM are the host's CA bundles, read at the probe, for the proxy.
	caPEM [][]byte
	// agent is the agent CLI the sandbox runs.
	agent agent.Agent
	// refuseEnv are the user's refuse-env patterns.
	refuseEnv []string
	// sshAgent is the user's SSH agent the sandbox's filtered one passes
	// to (--with-ssh), with the keys it may use (none named: all).
	sshAgent *sshAgent
	// gpgconf starts the user's gpg-agent, whose restricted socket is
	// gpgSocket (--with-gpg; "" without).
	gpgconf, gpgSocket string
	// gpgFilter is where the sandbox's gpg-agent, claudebox's filter of
	// gpgSocket, listens.
	gpgFilter string
	// cgroup is where the sandbox gets a cgroup of its own for its limits;
	// nil where the system delegates none to the user, for the reason
	// noCgroup.
	cgroup   *cgroup.Place
	noCgroup string
	// certEnv holds the host's certificate variables, taken out of
	// claudebox's own environment once its proxy starts.
	certEnv map[string]string
}

// Refused names, sorted, the host's variables the user's refuse-env
// patterns keep out.
func (s *Session) Refused() []string {
	var names []string
	for _, kv := range os.Environ() {
		if n, _, _ := strings.Cut(kv, "="); environment.Refused(n, s.refuseEnv) {
			names = append(names, n)
		}
	}
	// Those the proxy's start took out of claudebox's own environment.
	for n := range s.certEnv {
		if environment.Refused(n, s.refuseEnv) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Plan is the session's plan.
func (s *Session) Plan() mount.Plan { return s.plan }

// Skipped names the configured binds left out because their path does
// not exist (yet), each with its file.
func (s *Session) Skipped() []string { return s.skipped }

// Unapproved lists what the project's files add that the user has not
// approved for this project.
func (s *Session) Unapproved() []config.Item { return s.unapproved }

// Script is the launch as a shell command, one mount per line.
func (s *Session) Script() string { return s.plan.Script(s.bwrap) }

// Run asks for what needs approval, then runs the sandbox and supervises
// it until it ends; yes approves without asking.
func (s *Session) Run(yes bool) error {
	if s.launching == nil {
		s.launching = launchWatcher()
	}
	defer s.launching.abandonUntaken()
	if err := s.askApproval(yes); err != nil {
		return err
	}
	if err := s.noticeLegacy(); err != nil {
		return err
	}
	for _, b := range s.skipped {
		printable.Say(os.Stderr, "claudebox: skipped %s", b)
	}
	s.warnUnprotected()
	s.warnVariableGuards()
	if s.portsNote != "" {
		printable.Say(os.Stderr, "claudebox: %s", s.portsNote)
	}
	if s.sshAgent != nil && s.sshAgent.note != "" {
		printable.Say(os.Stderr, "claudebox: %s", s.sshAgent.note)
	}
	if !s.plan.Network && s.plan.Relay == nil && !s.shell {
		printable.Say(os.Stderr, "claudebox: --network=none: %s cannot reach its API in this sandbox and will not answer (for a shell without network: claudebox --network=none --shell)", s.agent.Title)
	}
	return s.supervise()
}

// Prepare validates everything a launch needs and creates nothing: the
// settings (the project, its configuration, the environment, the MCP
// servers carried in), then one probe of the host for what they need,
// then the plan, which reads only those.
func Prepare(o Options) (s *Session, err error) {
	phases := newPhases()
	if o.Launch {
		launching := launchWatcher()
		defer func() {
			if err != nil {
				launching.abandonUntaken()
				return
			}
			s.launching = launching
		}()
	}
	set, err := settle(o)
	if err != nil {
		return nil, err
	}
	phases.done("settings")
	// Worktrees: released once the stand-ins stand, or when claudebox exits.
	facts := probe.Read(set.query(o))
	phases.done("probe")
	s, err = plan(o, set, facts)
	if err != nil {
		if facts.Worktrees != nil {
			facts.Worktrees.Close()
		}
		return nil, err
	}
	s.phases = phases
	phases.done("plan")
	return s, nil
}

// settings are what the user asked of a launch, before the probe: the
// project, its configuration, the environment, the MCP servers carried
// in and what of the project's additions is unapproved.
type settings struct {
	cwd     string
	project instance.Project
	// state are claudebox's own directories, which no bind shows.
	state []string
	conf  config.Launch
	env   environment.Env
	mcp   hostMCP
	// servers are the MCP servers carried into Claude's claude.json;
	// agentMCP, the names of those carried into another agent's
	// configuration; leftOut, those offered and not carried.
	servers               map[string]json.RawMessage
	agentMCP, leftOut     []string
	additions, unapproved []config.Item
	// evalEnv are the host's variables an eval run passes in.
	evalEnv []string
}

// settle reads the settings: the working directory's project, the
// configuration files, the environment and Claude's own settings and
// ~/.claude.json, the user's approvals.
func settle(o Options) (settings, error) {
	if o.Eval != nil {
		return settleEval(o)
	}
	home, stateDir := o.Home.Dir, o.Home.State
	cwd, project, err := Here()
	if err != nil {
		return settings{}, err
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	// claudebox's own state and configuration, wherever they are, never
	// show through a bind, the project's included.
	state := o.Home.stateDirs()
	if err := checkProject(project.Checkout, home, state); err != nil {
		return settings{}, err
	}
	conf, err := config.Load(home, project, o.Flags, cwd, state)
	if err != nil {
		return settings{}, err
	}
	env, err := resolveEnv(home, conf)
	if err != nil {
		return settings{}, err
	}
	mcp, err := offeredMCP(home, stateDir, cwd, conf, agentOf(o), o.Shell)
	if err != nil {
		return settings{}, err
	}
	servers, mcpItems, err := conf.MCPServers(mcp.offered)
	if err != nil {
		return settings{}, err
	}
	additions := append(conf.Additions(env), mcpItems...)
	unapproved := config.Unapproved(additions, config.ReadApproval(stateDir, project.Root))
	if o.OnlyApproved {
		conf, env = conf.Without(env, unapproved)
		servers, _, _ = conf.MCPServers(mcp.offered)
	}
	conf.Hosts.Allow = append(conf.Hosts.Allow, mcpHosts(servers)...)
	leftOut := slices.DeleteFunc(mcp.names, func(name string) bool { return servers[name] != nil })
	// Another agent's servers are carried into the copy of its own
	// configuration, never into Claude's ~/.claude.json, which Claude's
	// later sessions read.
	var agentMCP []string
	if mcp.agents {
		agentMCP = slices.Sorted(maps.Keys(servers))
		servers = nil
	}
	return settings{
		cwd: cwd, project: project, state: state, conf: conf, env: env, mcp: mcp,
		servers: servers, agentMCP: agentMCP, leftOut: leftOut, additions: additions, unapproved: unapproved,
	}, nil
}

// query is what the probe reads for these settings.
func (set settings) query(o Options) probe.Query {
	if o.Eval != nil {
		return set.queryEval(o)
	}
	a := agentOf(o)
	program := a.Program
	if o.Shell {
		program = "bash"
	}
	// On the host's network the proxy's port is known once it listens
	// (Session.startProxy puts it in).
	agentURL := mount.APIURL
	if set.conf.Network == config.NetworkHost {
		agentURL = mount.HostAPIURL
	}
	network := set.conf.Network != config.NetworkNone
	var claudeArgs []probe.ClaudeArg
	if !o.Shell && a.IsClaude() {
		claudeArgs = claudeArgPaths(o.Args, set.cwd)
	}
	return probe.Query{
		Home: o.Home.Dir, State: o.Home.State, Project: set.project, Program: program, Getenv: os.Getenv, Environ: os.Environ(),
		Binds: set.conf.Binds, StateDirs: set.state, MCP: set.servers, ClaudeArgs: claudeArgs, Worktrees: true,
		WithSSH: set.conf.WithSSH, WithGPG: set.conf.WithGPG, GPU: set.conf.GPU, Limits: set.conf.Limits,
		Agent: a, APILookup: set.env.APILookup,
		AgentLogin:  !a.IsClaude() && !o.Shell && network,
		ClaudeLogin: (a.IsClaude() || o.Shell) && network,
		Interactive: o.Shell || !claudePrints(o.Args),
		AgentConfig: !o.Shell, AgentURL: agentURL, AgentMCP: set.agentMCP,
	}
}

// claudePrints says claude's arguments ask it to print an answer and
// exit (-p, --print, -cp), as Claude Code reads them: up to a "--".
func claudePrints(args []string) bool {
	for _, a := range claudeWords(args) {
		switch a {
		case "--":
			return false
		case "-p", "--print":
			return true
		}
	}
	return false
}

// claudeLetters are Claude Code's one-letter options (2.1.330's claude
// --help), true for those that take a value.
var claudeLetters = map[byte]bool{'c': false, 'h': false, 'p': false, 'v': false, 'd': true, 'n': true, 'r': true, 'w': true}

// claudeWords are claude's arguments with each word of several one-letter
// options split as Claude Code reads it: -cp is -c -p, and a letter that
// takes a value takes the rest of its word (-rID is -r ID). A letter
// Claude Code does not know ends the word, which it refuses.
func claudeWords(args []string) []string {
	var words []string
	for i, a := range args {
		if a == "--" {
			return append(words, args[i:]...)
		}
		if len(a) <= 2 || a[0] != '-' || a[1] == '-' {
			words = append(words, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			value, known := claudeLetters[a[j]]
			if !known {
				words = append(words, "-"+a[j:])
				break
			}
			words = append(words, "-"+a[j:j+1])
			if value {
				if j+1 < len(a) {
					words = append(words, a[j+1:])
				}
				break
			}
		}
	}
	return words
}

// claudePathFlags are Claude's own flags that name a path: a plugin's
// directory or .zip, or a folder of plugins, for the session only; a
// prompt file; a directory to work in (--add-dir takes one or more); a
// settings file, and MCP configs (one or more), each of which may be
// inline JSON instead.
var claudePathFlags = []string{"--plugin-dir", "--append-system-prompt-file", "--system-prompt-file", "--add-dir", claudesettings.SettingsFlag, claudesettings.MCPConfigFlag}

// claudeListFlags are those of claudePathFlags that take several values.
var claudeListFlags = []string{"--add-dir", claudesettings.MCPConfigFlag}

// claudeFlagValue is a value one of claudePathFlags takes in claude's
// arguments: args[i], or its part after "flag=" where eq.
type claudeFlagValue struct {
	i           int
	flag, value string
	eq          bool
}

// claudeFlagValues are the values claudePathFlags take in args, as claude
// reads them: after "flag=", or the words after the flag (one, or up to
// the next option for claudeListFlags), before "--".
func claudeFlagValues(args []string) []claudeFlagValue {
	var values []claudeFlagValue
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		flag, value, eq := strings.Cut(args[i], "=")
		if !slices.Contains(claudePathFlags, flag) {
			continue
		}
		if eq {
			values = append(values, claudeFlagValue{i, flag, value, true})
			continue
		}
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			values = append(values, claudeFlagValue{i, flag, args[i], false})
			if !slices.Contains(claudeListFlags, flag) {
				break
			}
		}
	}
	return values
}

// claudeArgPaths are the paths Claude's own flags name in args, made
// absolute from cwd as claude inside makes them; inline JSON as given.
func claudeArgPaths(args []string, cwd string) []probe.ClaudeArg {
	var found []probe.ClaudeArg
	for _, v := range claudeFlagValues(args) {
		path := v.value
		switch {
		case path == "":
			continue
		case claudesettings.InlineJSON(v.flag, path):
		case !filepath.IsAbs(path) && !strings.HasPrefix(path, "~") && !strings.HasPrefix(path, "$HOME") && !strings.HasPrefix(path, "${HOME}"):
			path = filepath.Join(cwd, path)
		}
		found = append(found, probe.ClaudeArg{Flag: v.flag, Path: path})
	}
	return found
}

// resolveEnv works out the variables passed in. The user's
// ~/.claude/settings.json env wins over the shell's for the API's address
// and credential, as it does for their claude; those reach only the proxy.
func resolveEnv(home string, conf config.Launch) (environment.Env, error) {
	env, err := environment.Resolve(append(os.Environ(), claudesettings.APIEnv(home)...), conf.EnvFlags, conf.EnvFiles)
	if err == nil {
		env, err = environment.Refuse(env, conf.EnvFlags, conf.EnvFiles, conf.RefuseEnv)
	}
	var identity *environment.IdentityError
	var refused *environment.RefusedError
	switch {
	case errors.As(err, &refused):
		return env, hint.Errorf("drop it, or remove the pattern from refuse-env in "+config.UserConfigPath(home), "%v", err)
	case errors.As(err, &identity):
		return env, hint.Errorf("to pass it, name it yourself: claudebox --env "+identity.Name+", or env in "+config.UserConfigPath(home), "%v", err)
	case err != nil:
		return env, hint.Errorf("export the variable first, or drop the flag", "%v", err)
	case slices.Contains(env.Names, claudeConfigVar):
		return env, hint.Errorf("drop it; a ~/.claude that links to your configuration is shown as ~/.claude is, read-only: ln -s DIR ~/.claude",
			"%s would have claude inside keep its conversations in the sandbox's own home, lost at exit, where claudebox -c and --resume never find them", claudeConfigVar)
	}
	return env, nil
}

// hostMCP is what the host's ~/.claude.json offers this project (or, for
// another agent, its own configuration file): the servers' names, and
// their definitions when any is asked for. agents says they are another
// agent's. claudeJSON is what ~/.claude.json carries, read once for the
// launch (the instance's claude.json is made for every agent).
type hostMCP struct {
	names      []string
	offered    map[string]json.RawMessage
	agents     bool
	claudeJSON instance.HostClaudeJSON
}

func offeredMCP(home, stateDir, cwd string, conf config.Launch, a agent.Agent, shell bool) (hostMCP, error) {
	claudeJSON, err := instance.ReadHostClaudeJSON(hostClaudeJSONPath(home), stateDir, trustPaths(cwd))
	if err != nil {
		return hostMCP{}, err
	}
	if !a.IsClaude() && !shell {
		m := hostMCP{offered: a.MCPServers(home), agents: true, claudeJSON: claudeJSON}
		m.names = slices.Sorted(maps.Keys(m.offered))
		for _, name := range conf.MCP {
			if m.offered[name.Name] == nil {
				return m, hint.Errorf("carry in one of its own servers: "+strings.Join(m.names, ", "),
					"no MCP server %s in %s's configuration", name.Name, a.Name)
			}
		}
		return m, nil
	}
	m := hostMCP{names: claudeJSON.MCPNames(trustPaths(cwd)), claudeJSON: claudeJSON}
	if len(conf.MCP) > 0 {
		m.offered, err = claudeJSON.MCPServers(trustPaths(cwd))
	}
	return m, err
}

// lookupEnv gives the values the sandbox starts with: the proxy's for the
// API's address and credential (never the host's), else an env file's, else
// the host's.
func (s *Session) lookupEnv(name string) (string, bool) {
	if isAPIVariable(name) {
		return s.apiValue(name)
	}
	if v, ok := s.env.Values[name]; ok {
		return v, true
	}
	if v, ok := s.certEnv[name]; ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// askApproval asks the user, once, to approve what the project's files add
// to its sandbox; --yes approves without asking. A stdin that is not a
// terminal cannot answer, so the launch fails instead of hanging.
func (s *Session) askApproval(yes bool) error {
	if len(s.unapproved) == 0 {
		return nil
	}
	var what []string
	for _, a := range s.unapproved {
		what = append(what, a.Show)
	}
	if !yes {
		if !pty.IsTerminal(os.Stdin) {
			return hint.Errorf("check them, then run claudebox --yes to approve them for this project",
				"the project's settings add what you have not approved for it: %s", strings.Join(what, ", "))
		}
		printable.Say(os.Stderr, "claudebox: the project's settings add what you have not approved for it:")
		for _, w := range what {
			printable.Say(os.Stderr, "  %s", w)
		}
		fmt.Fprint(os.Stderr, "Allow them in this project's sandbox? [y/N] ")
		answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return hint.Errorf("remove them from the file, or answer y", "not approved: nothing was started")
		}
	}
	s.approve = true
	return nil
}

// Here returns the current directory and its project.
func Here() (string, instance.Project, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", instance.Project{}, hint.Errorf("cd into your project again", "the current directory no longer exists")
	}
	project, err := instance.Resolve(cwd)
	if err != nil {
		return "", instance.Project{}, resolveError(err)
	}
	return cwd, project, nil
}

// resolveError explains why the project of the current directory cannot
// be decided.
func resolveError(err error) error {
	var config *gitconfig.Error
	switch {
	case errors.As(err, &config) && config.Line > 0:
		return hint.Errorf("git refuses this file too: fix that line on the host (git config --file "+config.Path+" --list names it)", "%v", err)
	case errors.As(err, &config):
		return hint.Errorf("make it a regular file of at most 1 MiB on the host; if you did not set this up, the sandbox may have", "%v", err)
	}
	var redirect *instance.RedirectError
	if errors.As(err, &redirect) {
		return hint.Errorf("if you did not set this up, the sandbox may have: check it, then remove it or repair it on the host (git worktree repair)",
			"refusing a git redirect: %v", err)
	}
	return hint.Errorf("cd into your project again", "cannot resolve the current directory: %v", err)
}

// Home is where claudebox keeps its state: the user's home, by its real
// path, and claudebox's state directory in it.
type Home struct {
	Dir, State string
}

// stateDirs are claudebox's own state and configuration, and Claude
// Code's, wherever they are, which no bind shows: the one recipe every
// preparation reads.
func (h Home) stateDirs() []string {
	private := []string{h.State, filepath.Dir(config.UserConfigPath(h.Dir))}
	if d := claudeConfigDir(h.Dir); d != "" {
		private = append(private, d)
	}
	return bind.StateDirs(h.Dir, private)
}

// claudeConfigDir is where the host's claude keeps what it keeps in
// ~/.claude (the login, every project's conversations) when
// CLAUDE_CONFIG_DIR moves it; "" when it is not set, or names the home
// or a directory above it, which would make every bind state.
func claudeConfigDir(home string) string {
	d := os.Getenv(claudeConfigVar)
	if d == "" {
		return ""
	}
	d, err := filepath.Abs(d)
	if err != nil || paths.Within(home, d) {
		return ""
	}
	return d
}

// hostClaudeJSONPath is the file the host's claude keeps its own state
// in (its MCP servers, the onboarding, each project's trust): in the
// directory CLAUDE_CONFIG_DIR names, where claude mcp add writes it, else
// in the home.
func hostClaudeJSONPath(home string) string {
	if d := claudeConfigDir(home); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(home, ".claude.json")
}

// FindHome reads $HOME, which must name an existing directory.
func FindHome() (Home, error) {
	home := os.Getenv("HOME")
	if home == "" {
		return Home{}, hint.Errorf("set HOME to your home directory", "HOME is not set")
	}
	if !filepath.IsAbs(home) {
		return Home{}, hint.Errorf("set HOME to an absolute path", "HOME is not absolute: %s", home)
	}
	fi, err := os.Stat(home)
	if err != nil || !fi.IsDir() {
		return Home{}, hint.Errorf("set HOME to your home directory", "HOME is not a directory: %s", home)
	}
	real, err := filepath.EvalSymlinks(home)
	if err != nil {
		return Home{}, err
	}
	return Home{Dir: real, State: filepath.Join(real, ".claudebox")}, nil
}

// checkProject refuses a project directory whose read-write bind would
// expose what the sandbox exists to hide: the rules of a user's --bind.
func checkProject(checkout, home string, state []string) error {
	if reason := bind.SourceRefusal(checkout, true, home, state); reason != "" {
		if sock := bind.SocketIn(checkout); sock != "" && strings.HasPrefix(reason, sock+" ") {
			// One a session left, which its exit did not move aside (it
			// was killed), refused every launch, the hint saying to cd.
			return hint.Errorf("remove "+sock+" if nothing of yours listens on it: a sandbox may have left it", "refusing to use %s as the project: %s", checkout, reason)
		}
		return hint.Errorf("cd into a project directory first", "refusing to use %s as the project: %s", checkout, reason)
	}
	return nil
}

// materialize creates what the plan binds: the instance with its
// project-root, SANDBOX.md, claude.json and history, then the placeholders
// of the project's guards, so that bwrap never creates a file on the host. It
// returns the instance's session lock, held shared: placeholders are made
// under it, so no cleanup can remove them before the sandbox holds it too.
func (s *Session) materialize() (*os.File, error) {
	if err := os.MkdirAll(s.stateDir, 0o700); err != nil || unix.Access(s.stateDir, unix.W_OK) != nil {
		return nil, hint.Errorf("fix its ownership or permissions: chmod u+rwx "+s.stateDir, "%s is not writable", s.stateDir)
	}
	dir, repairs, err := instance.Ensure(s.stateDir, s.plan.Project.Root, mount.HistoryFile)
	if errors.Is(err, instance.ErrOtherRoot) {
		return nil, hint.Errorf("move the instance directory aside if you edited it by hand", "%v", err)
	}
	if err != nil {
		return nil, err
	}
	for _, r := range repairs {
		printable.Say(os.Stderr, "claudebox: %s", r)
	}
	if err := gc.RecordHolder(s.stateDir, s.plan.Project.Root, s.readMounts()); err != nil {
		return nil, err
	}
	lock, err := instance.OpenLock(dir)
	if err != nil {
		return nil, err
	}
	// The first session after a supervisor was killed cleans up after it.
	if idle, err := instance.TryLockIdle(lock); err == nil && idle {
		said := newExitVoice()
		s.cleanUp(said, dir, nil, false)
		said.keepUnheard(s.stateDir, dir)
	}
	if err := instance.LockShared(lock); err != nil {
		lock.Close()
		return nil, err
	}
	// Held until the supervisor exits: --list says which checkout runs one.
	if s.checkoutHold, err = instance.HoldCheckout(dir, s.plan.Project.Checkout); err != nil {
		lock.Close()
		return nil, err
	}
	seat, held, err := instance.TakeSeat(dir)
	if err != nil {
		lock.Close()
		return nil, err
	}
	s.seat, s.plan.Hostname = held, mount.SeatHostname(s.hostname, seat)
	// Made under the lock: --gc --caches removes them only under it.
	if err := instance.EnsureCaches(s.stateDir, s.plan.Project.Root, s.plan.CacheNames()); err != nil {
		lock.Close()
		return nil, err
	}
	if s.first, err = instance.MarkStart(dir, s.plan.Project.Root); err != nil {
		lock.Close()
		return nil, err
	}
	if err := s.recordAndFill(dir); err != nil {
		// Its placeholders and its start go: a start left behind would
		// date the next session's exit audit.
		s.leave(newExitVoice(), lock, nil)
		lock.Close()
		return nil, err
	}
	return lock, nil
}

// recordAndFill records the checkout's start and what the exit audit
// looks through, then fills the instance; the start is recorded already,
// so every failure here must leave as a session does.
func (s *Session) recordAndFill(dir string) error {
	if s.probedWorktrees != nil {
		defer s.probedWorktrees.Close()
	}
	reached, err := instance.MarkCheckout(dir, s.plan.Project.Checkout)
	if err != nil {
		return err
	}
	s.firstInCheckout = reached && !s.first
	if err := s.addAuditRoots(dir); err != nil {
		return err
	}
	if err := s.fill(dir); err != nil {
		return err
	}
	instance.Tick(dir)
	return nil
}

// fill writes what the plan binds from the instance dir and makes the
// placeholders of the project's guards, or keeps those another project's
// session made, recorded first so that a cleanup after a crash knows them
// and no other project's cleanup removes them while this project runs.
func (s *Session) fill(dir string) error {
	if s.approve {
		if err := config.WriteApproval(s.stateDir, s.plan.Project.Root, s.additions); err != nil {
			return err
		}
	}
	if err := createEmpty(filepath.Join(dir, mount.HistoryFile)); err != nil {
		return err
	}
	if err := makeAgentState(dir); err != nil {
		return err
	}
	// A session started beside another is no next session: what the
	// other's agent writes there while it runs (Gemini's checkpoints,
	// Codex's open databases) stays until the project's next first one.
	if s.first {
		if err := pruneAgentState(dir); err != nil {
			return err
		}
	}
	if err := s.writeAgentConfig(dir); err != nil {
		return err
	}
	// An earlier claudebox kept SANDBOX.md in the instance; no one reads
	// it now.
	os.Remove(filepath.Join(dir, mount.SandboxMDFile))
	var alias instance.KeyAlias
	if s.proxy != nil && s.cred != nil && s.cred.Kind == proxy.APIKey {
		real, _ := s.cred.Token(context.Background())
		alias = instance.KeyAlias{Real: real, Phantom: s.proxy.Phantom}
	}
	if err := instance.SyncClaudeJSON(s.claudeJSON, dir, trustPaths(s.plan.Chdir), alias, s.mcp); err != nil {
		return err
	}
	var paths []string
	for _, m := range s.plan.Placeholders() {
		paths = append(paths, m.Dest)
	}
	for _, g := range s.plan.Guards {
		if g.MakeDir {
			paths = append(paths, filepath.Join(g.Path, instance.WorktreesKeeper))
		}
	}
	// Under the lock every project's cleanup takes: none can decide to
	// remove a placeholder before our record names it and then remove it
	// after we found it there and made none.
	unlock, err := instance.LockPlaceholders(dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := instance.RecordPlaceholders(dir, paths); err != nil {
		return err
	}
	for _, d := range s.plan.MadeDirs() {
		if err := guard.MakeDir(d); err != nil {
			return err
		}
	}
	// The worktrees folders (the guards made where missing) are kept
	// from the host's git, which removes one that is empty, until the
	// last session's cleanup, or, after a killed one, whatever removes
	// its stand-ins.
	for _, g := range s.plan.Guards {
		if g.MakeDir {
			if err := guard.KeepWorktrees(g.Path); err != nil {
				return err
			}
		}
	}
	for _, m := range s.plan.Placeholders() {
		if err := createPlaceholder(m); err != nil {
			return err
		}
	}
	return nil
}

// createEmpty creates path as an empty 0600 file unless it exists, without
// following a symlink.
func createEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// createPlaceholder makes the stand-in a guard's mount needs where nothing
// exists, recognisably claudebox's.
func createPlaceholder(m mount.Mount) error {
	if instance.IsPlaceholder(m.Dest) {
		return nil
	}
	err := guard.CreatePlaceholder(m)
	if errors.Is(err, os.ErrExist) {
		return hint.Errorf("start claudebox again", "%s appeared while claudebox was starting", m.Dest)
	}
	return err
}

// descriptors returns what bwrap reads from the descriptors the plan names,
// in order: the seccomp filter, then the content of each data mount. They
// are anonymous memory files, so the sandbox cannot reopen a host file
// through one.
func (s *Session) descriptors() (files []*os.File, err error) {
	defer func() {
		if err != nil {
			closeAll(files)
		}
	}()
	add := func(data []byte) error {
		fd, err := unix.MemfdCreate("claudebox", unix.MFD_CLOEXEC)
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), "claudebox-data")
		files = append(files, f)
		if _, err := f.Write(data); err != nil {
			return err
		}
		_, err = f.Seek(0, 0)
		return err
	}
	filter, err := seccomp.Filter()
	if err != nil {
		return nil, err
	}
	if err := add(filter); err != nil {
		return files, err
	}
	for _, m := range s.plan.DataMounts() {
		data := s.agentData(m)
		if m.Src != "" {
			if data, err = readCopy(m); err != nil {
				return files, err
			}
			var leftOut []string
			data, leftOut = claudesettings.CopyContent(m.Dest, s.plan.Home, data)
			if flag := s.plan.ClaudeFlag(m.Dest); flag != "" {
				data, leftOut = claudesettings.FlagCopy(flag, data)
			}
			if system, dropped, ok := agent.SystemCopy(m.Dest, data, s.plan.Project.Root); ok {
				data, leftOut = system, dropped
			}
			if system, dropped, ok := probe.SystemSSHConfig(m.Dest, data); ok {
				data, leftOut = system, dropped
			}
			s.leaveOut(m.Dest, leftOut)
			if m.Dest == mount.EtcHosts && s.plan.Hostname != "" {
				data = mount.NamedInHosts(data, s.plan.Hostname)
			}
			if s.agentCopy(m.Dest) {
				data = agent.TrustCopy(data, s.plan.Project.Root)
			}
		}
		if m.Kind == mount.BindData {
			s.copies = append(s.copies, &privateCopy{dest: m.Dest, given: data})
		}
		if err := add(data); err != nil {
			return files, err
		}
	}
	if s.plan.Relay != nil {
		handoff, err := s.relayHandoff()
		if err != nil {
			return files, err
		}
		files = append(files, handoff)
	}
	return files, nil
}

// maxCopyIn is the largest file copied into the sandbox: settings, a
// keyring.
const maxCopyIn = 64 << 20

// readCopy reads the host file a data mount copies: the file the probe
// checked, by its identity, with no link on the way (the sandbox of an
// enclosing project can write a project's .claude/settings.json, and swap
// it for a link to a key between the check and this read).
func readCopy(m mount.Mount) ([]byte, error) {
	data, err := untrusted.ReadChecked("/", strings.TrimPrefix(m.Src, "/"), m.Checked, maxCopyIn)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, untrusted.ErrReplaced), errors.Is(err, unix.ELOOP), errors.Is(err, fs.ErrNotExist), errors.Is(err, untrusted.ErrNotRegular):
		// No sandbox writes the system's configuration: a package manager
		// or an administrator replaced it.
		why := "start claudebox again; if you did not change it, a sandbox that can write it (an enclosing project's) may have: check it"
		if m.Kind == mount.File {
			why = "start claudebox again (the system replaced it: a package upgrade, or an administrator)"
		}
		return nil, hint.Errorf(why, "%s changed while claudebox was starting: it is not the file checked", m.Src)
	}
	return nil, hint.Errorf("make it readable, or move it aside", "cannot copy %s into the sandbox: %v", m.Src, err)
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// trustPaths are the directories whose trust decision Claude Code consults:
// the working directory and its ancestors.
func trustPaths(cwd string) []string {
	var paths []string
	for d := cwd; ; d = filepath.Dir(d) {
		paths = append(paths, d)
		if d == "/" {
			return paths
		}
	}
}

// mcpHosts are the hosts of the remote MCP servers carried in, which the
// filtered network lets Claude reach: the user named each server (or
// approved a repository's naming it), and it is useless without its host.
func mcpHosts(servers map[string]json.RawMessage) []proxy.Rule {
	var rules []proxy.Rule
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		def := servers[name]
		var d struct {
			URL     string `json:"url"`
			HTTPURL string `json:"httpUrl"`
		}
		if json.Unmarshal(def, &d) != nil || d.URL == "" && d.HTTPURL == "" {
			continue
		}
		if d.URL == "" {
			d.URL = d.HTTPURL
		}
		u, err := url.Parse(d.URL)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Hostname() == "" {
			continue
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
		}
		if r, err := proxy.ParseRule(net.JoinHostPort(u.Hostname(), port)); err == nil {
			rules = append(rules, r.From("MCP server "+printable.Escape(name)+"'s URL"))
		}
	}
	return rules
}
