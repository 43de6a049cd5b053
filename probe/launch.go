package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/hardlink"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/leafdirs"
	"github.com/claudebox/claudebox/landlock"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/limits/cgroup"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/untrusted"
	"golang.org/x/sys/unix"
)

// Query is what a launch's settings ask the probe to read.
type Query struct {
	Home, State string
	Project     instance.Project
	// Program is the command to find on PATH (claude, another agent's,
	// bash), or, with a slash, its path as given.
	Program string
	// Getenv reads the environment claudebox was started in; Environ is
	// that environment whole (NAME=value).
	Getenv  func(string) string
	Environ []string
	Binds   []mount.BindSpec
	// StateDirs are claudebox's own directories, which no bind shows.
	StateDirs []string
	// MCP are the MCP servers carried in, whose programs are shown.
	MCP map[string]json.RawMessage
	// ClaudeArgs are the paths Claude's own command line names.
	ClaudeArgs []ClaudeArg
	// Worktrees: hold the repository's worktrees as Host finds them
	// (instance.WaitWorktrees), for a launch that makes stand-ins.
	Worktrees        bool
	WithSSH, WithGPG bool
	GPU              bool
	// Limits are the bounds asked for; a cgroup is looked for when any is.
	Limits limits.Limits
	// Agent is the agent CLI to run. ClaudeLogin asks for the user's
	// Claude credential, AgentLogin for Agent's own login; APILookup reads
	// the variables the user's settings and the environment set for the
	// API; Interactive, claude runs without -p (proxy.Find).
	Agent                   agent.Agent
	ClaudeLogin, AgentLogin bool
	APILookup               func(string) (string, bool)
	Interactive             bool
	// AgentConfig asks what the plan shows of Agent's configuration (not
	// Claude's, whose is Host's): AgentURL is the proxy's address inside,
	// AgentMCP the servers of that configuration carried in.
	AgentConfig bool
	AgentURL    string
	AgentMCP    []string
}

// Launch is what a launch knows of the host: every read of it the plan
// needs, made once, by Read. Nothing in it is an effect but Worktrees,
// a shared lock held open.
type Launch struct {
	// Worktrees holds the repository's worktrees as Host found them until
	// the stand-ins stand; nil where nothing holds them.
	Worktrees *os.File
	// Bwrap and Command are the programs' paths, "" where not found;
	// Command is named by its directory's real path, since a $HOME or PATH
	// entry reached through a symlink names it by a path the sandbox's
	// home does not have. Runnable says Command is an executable file (one
	// named by its path may not be).
	Bwrap, Command string
	Runnable       bool
	Host           mount.Host
	CA             CA
	// Landlock says bwrap starts in a scoped Landlock domain; NoLandlock,
	// why not.
	Landlock   bool
	NoLandlock string
	// Exe is claudebox's own executable by its real path, the sandbox's
	// first process;
	// ExeErr, why it cannot be found.
	Exe    string
	ExeErr error
	SSH    SSHAgent
	GPG    GPG
	// Provider names the cloud provider's switch set, "" for none.
	Provider string
	// Hostname is the host's name, which a session started beside
	// another of its project is named after (mount.SeatHostname).
	Hostname string
	// Credential is the login found (Claude's, or Agent's), nil for none.
	Credential *proxy.Credential
	// Agent is Query's agent as it runs with the host's own login
	// (agent.ForHost); AgentConfig, what the plan shows of its
	// configuration.
	Agent       agent.Agent
	AgentConfig *mount.AgentConfig
	// Cgroup is where the sandbox gets a cgroup of its own; nil where the
	// system delegates none to the user, for the reason NoCgroup.
	Cgroup   *cgroup.Place
	NoCgroup string
	GPU      *mount.GPU
	// RuntimeDir is claudebox's directory on a tmpfs of the user's alone,
	// or "" (see RuntimeDir).
	RuntimeDir string
	// Linked are the files of the project (and of the git directories the
	// sandbox writes) that the host's tools made hard links to files
	// outside it, which the launch makes files of their own.
	Linked []hardlink.Found
}

// RuntimeDir is claudebox's directory for what a session writes on the
// host only to bind it inside and removes at its end (the private copies):
// "claudebox" in the directory $XDG_RUNTIME_DIR names (getenv reads the
// environment) when that is an absolute path to a directory, not a link,
// that the user owns and alone may enter; else one in /dev/shm (see
// sharedMemoryDir); "" where neither is (the copies then go beside the
// run files, on the disk). On a tmpfs (the runtime directory is one on
// most systems) a file made and removed leaves nothing behind for the next
// one's making to search past, as the inodes freed in the last minutes are
// on a journal-less ext4.
func RuntimeDir(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) && ownPrivateDir(dir) {
		return filepath.Join(dir, "claudebox")
	}
	return sharedMemoryDir(sharedMemory)
}

// sharedMemory is the tmpfs every process may write into (mode 1777), which
// the sandbox does not see: its /dev is one of its own.
const sharedMemory = "/dev/shm"

// sharedMemoryRoom is the least room sharedMemoryDir takes a tmpfs with:
// the copies are each at most 16 MiB (probe's treeCopy), and a container's
// /dev/shm of 64 MiB is better left to its programs.
const sharedMemoryRoom = 256 << 20

// sharedMemoryDir is "claudebox-<uid>-<pid namespace>" in shm when shm is
// a tmpfs with sharedMemoryRoom free and that name is not yet taken (the
// session makes it, and takes it only as its own: session's
// makePrivateDir) or is already the user's own private directory; ""
// otherwise: another user's directory or link there is not written
// through. The directory being the user's, in a sticky directory, no one
// else can rename or remove it. The pid namespace is in the name because
// the copies' sweep tells a running session by its supervisor's pid, and a
// container may share the host's /dev/shm (--ipc=host) but not its pids.
func sharedMemoryDir(shm string) string {
	var fs unix.Statfs_t
	if unix.Statfs(shm, &fs) != nil || fs.Type != unix.TMPFS_MAGIC || fs.Bavail*uint64(fs.Bsize) < sharedMemoryRoom {
		return ""
	}
	dir := sharedMemoryName(shm)
	if _, err := os.Lstat(dir); dir != "" && (errors.Is(err, os.ErrNotExist) || ownPrivateDir(dir)) {
		return dir
	}
	return ""
}

// sharedMemoryName is the path sharedMemoryDir takes in shm for this user
// and pid namespace; "" where the namespace cannot be read.
func sharedMemoryName(shm string) string {
	var ns unix.Stat_t
	if unix.Stat("/proc/self/ns/pid", &ns) != nil {
		return ""
	}
	return filepath.Join(shm, "claudebox-"+strconv.Itoa(os.Getuid())+"-"+strconv.FormatUint(ns.Ino, 10))
}

// CopiesDirs are the directories RuntimeDir may name that exist as the
// user's own, whatever RuntimeDir names now: a session killed before its
// end left its private copies in one, and a later launch with another
// environment (a cron job's without $XDG_RUNTIME_DIR, a terminal's with
// it) or less room in /dev/shm would not look there.
func CopiesDirs(getenv func(string) string) []string {
	return copiesDirs(getenv, sharedMemory)
}

func copiesDirs(getenv func(string) string, shm string) []string {
	var dirs []string
	if dir := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) && ownPrivateDir(dir) {
		dirs = append(dirs, filepath.Join(dir, "claudebox"))
	}
	if dir := sharedMemoryName(shm); dir != "" && ownPrivateDir(dir) {
		dirs = append(dirs, dir)
	}
	return dirs
}

// ownPrivateDir says dir is a directory, not a link, that the user owns
// and alone may enter.
func ownPrivateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// SSHAgent is the user's SSH agent as SSH_AUTH_SOCK names it, and the
// known_hosts files ssh reads by default (the user's, the system's), whose
// host keys say which servers the agent signs a login to.
type SSHAgent struct {
	Socket     string
	IsSocket   bool
	KnownHosts [][]byte
}

// knownHostsFiles reads ssh's default known_hosts files under home, each
// a regular file, up to 4 MiB (GitHub's keys take three lines).
func knownHostsFiles(home string) [][]byte {
	var files [][]byte
	for _, p := range []string{filepath.Join(home, ".ssh", "known_hosts"), filepath.Join(home, ".ssh", "known_hosts2"), "/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"} {
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if b, err := io.ReadAll(io.LimitReader(f, 4<<20)); err == nil {
				files = append(files, b)
			}
		}
		f.Close()
	}
	return files
}

// GPG is what the host's gpg would use for --with-gpg: gpgconf ("" where
// not on PATH), whether its --list-dirs answered (ListErr), and the agent's
// restricted socket with the keyring beside it (nil without an extra
// socket).
type GPG struct {
	Conf    string
	ListErr error
	Agent   *mount.GPGAgent
}

// tokenURLVariable, in claudebox's own environment on the host, replaces
// the token endpoint of the OAuth login the proxy refreshes (Claude's,
// Codex's ChatGPT login, Gemini's Google login): for tests, which play it
// on 127.0.0.1. Nothing in a sandbox or a project can set it.
const tokenURLVariable = "CLAUDEBOX_OAUTH_TOKEN_URL"

// Read reads the host for a launch, once.
func Read(q Query) Launch {
	var l Launch
	if q.Worktrees {
		// Taken before Host reads the worktrees.
		l.Worktrees = instance.WaitWorktrees(instance.Dir(q.State, q.Project.Root))
	}
	l.Bwrap, _ = exec.LookPath("bwrap")
	l.Command, l.Runnable = findProgram(q.Program)
	// The look for hard links runs beside the rest of the probe, and
	// shares with the look for nested repositories the status of each
	// directory two levels down that both read.
	linked := make(chan []hardlink.Found, 1)
	leaves := new(leafdirs.Statuses)
	go func() {
		if q.Project.Checkout == "" {
			linked <- nil
			return
		}
		linked <- hardlink.Find(q.Project.Checkout, q.Project.GitDirs, leaves)
	}()
	l.Host = Host(q.Home, q.State, q.Project, l.Command, q.Getenv, q.Binds, q.StateDirs, q.MCP, q.ClaudeArgs, q.Environ, leaves)
	l.CA = caBundles(q.Home, q.Project.Checkout, q.Binds, q.StateDirs, q.Getenv)
	if l.Bwrap != "" {
		l.Landlock, l.NoLandlock = LandlockScoping(l.Bwrap)
	}
	l.Hostname, _ = os.Hostname()
	l.Exe, l.ExeErr = os.Executable()
	if l.ExeErr == nil {
		l.Exe, l.ExeErr = filepath.EvalSymlinks(l.Exe)
	}
	if q.WithSSH {
		l.SSH.Socket = q.Getenv("SSH_AUTH_SOCK")
		fi, err := os.Stat(l.SSH.Socket)
		l.SSH.IsSocket = l.SSH.Socket != "" && err == nil && fi.Mode()&os.ModeSocket != 0
		l.SSH.KnownHosts = knownHostsFiles(q.Home)
	}
	if q.WithGPG {
		l.GPG = gpg()
	}
	l.Provider = Provider(q.Getenv)
	l.RuntimeDir = RuntimeDir(q.Getenv)
	tokenURL := q.Getenv(tokenURLVariable)
	l.Agent = q.Agent.ForHost(q.Home, q.APILookup)
	if l.Agent.Key == proxy.GoogleOAuth {
		l.Agent.GoogleProject = googleProject(q.Getenv)
	}
	switch {
	case q.AgentLogin:
		if l.Credential, _ = l.Agent.FindKey(q.Home, q.APILookup); l.Credential == nil {
			l.Credential, _ = l.Agent.FindLogin(q.Home, q.State, tokenURL)
		}
	case q.ClaudeLogin && l.Provider == "":
		l.Credential, _ = ClaudeLogin(q.Home, q.State, q.APILookup, q.Getenv, q.Interactive)
	}
	if q.AgentConfig && !l.Agent.IsClaude() {
		l.AgentConfig = agentConfig(q.Home, l.Agent, q.AgentURL, q.AgentMCP, q.Project.Root)
	}
	l.Cgroup, l.NoCgroup = cgroup.Find(q.Limits)
	if q.GPU {
		g := gpu("/")
		l.GPU = &g
	}
	l.Linked = <-linked
	return l
}

// findProgram finds name on PATH (a name with a slash is a path
// already), by its directory's real path, and whether it is an executable
// file; "" where it is not on PATH.
func findProgram(name string) (string, bool) {
	prog := name
	if !strings.Contains(name, "/") {
		var err error
		if prog, err = exec.LookPath(name); err != nil {
			return "", false
		}
	}
	if abs, err := filepath.Abs(prog); err == nil {
		prog = abs
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(prog)); err == nil {
		prog = filepath.Join(dir, filepath.Base(prog))
	}
	fi, err := os.Stat(prog)
	return prog, err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// ClaudeLogin finds the user's Claude credential on the host: the
// separate sandbox login, a variable of the user's (their own env settings
// or --env first, then the host's environment: lookup), or the host's
// login; interactive, for claude without -p (proxy.Find).
func ClaudeLogin(home, state string, lookup func(string) (string, bool), getenv func(string) string, interactive bool) (*proxy.Credential, error) {
	return proxy.Find(home, state, lookup, getenv(tokenURLVariable), interactive)
}

// Provider names the cloud-provider switch set on the host, if any: Claude
// Code then authenticates with the provider's credentials, not through the
// proxy.
func Provider(getenv func(string) string) string {
	for _, n := range proxy.ProviderVariables {
		if v := getenv(n); v != "" && v != "0" && v != "false" {
			return n
		}
	}
	return ""
}

// LandlockScoping says whether a sandbox started with bwrap gets a scoped
// Landlock domain, and if not, why.
func LandlockScoping(bwrap string) (bool, string) {
	if abi := landlock.ABI(); abi < landlock.ScopeABI {
		return false, fmt.Sprintf("the kernel's Landlock ABI is %d; scoping needs %d (Linux 6.12)", abi, landlock.ScopeABI)
	}
	if fi, err := os.Stat(bwrap); err == nil && fi.Mode()&os.ModeSetuid != 0 {
		return false, bwrap + " is setuid"
	}
	return true, ""
}

// gpg finds what --with-gpg forwards, as the host's gpg would: the agent's
// extra socket and its home, from gpgconf (which honours GNUPGHOME). Only
// gpgconf --list-dirs runs: the agent starts at the launch, never here.
func gpg() GPG {
	var g GPG
	conf, err := exec.LookPath("gpgconf")
	if err != nil {
		return g
	}
	g.Conf = conf
	out, err := exec.Command(conf, "--list-dirs").Output()
	if err != nil {
		g.ListErr = err
		return g
	}
	dirs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok {
			// gpgconf escapes with %XX (%3a for ':').
			if v, err := url.PathUnescape(value); err == nil {
				dirs[name] = v
			}
		}
	}
	home, sock := dirs["homedir"], dirs["agent-extra-socket"]
	if sock == "" || home == "" {
		return g
	}
	g.Agent = &mount.GPGAgent{Socket: sock}
	for _, name := range []string{"pubring.kbx", "pubring.gpg", "trustdb.gpg"} {
		if c, ok := copyOf(filepath.Join(home, name)); ok {
			g.Agent.Keyring = append(g.Agent.Keyring, c)
		}
	}
	for _, name := range []string{"gpg.conf", "common.conf"} {
		if f := filepath.Join(home, name); regular(f) {
			b, err := untrusted.ReadFile(home, name, 1<<20)
			if err != nil {
				g.Agent.SettingsLeftOut = append(g.Agent.SettingsLeftOut, "all of "+name+" in gpg's home (it cannot be read whole)")
				continue
			}
			kept, dropped := gpgSettingsView(b)
			g.Agent.Settings = append(g.Agent.Settings, mount.GPGSettings{Name: name, Content: string(kept)})
			for _, d := range dropped {
				g.Agent.SettingsLeftOut = append(g.Agent.SettingsLeftOut, d+" in "+name+" in gpg's home")
			}
		}
	}
	return g
}

// regular reports whether path is a regular file, not a link.
func regular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// googleProject is the Google Cloud project Gemini CLI's Google login
// uses on the host: GOOGLE_CLOUD_PROJECT, else GOOGLE_CLOUD_PROJECT_ID, as
// it reads them.
func googleProject(getenv func(string) string) string {
	if p := getenv("GOOGLE_CLOUD_PROJECT"); p != "" {
		return p
	}
	return getenv("GOOGLE_CLOUD_PROJECT_ID")
}
