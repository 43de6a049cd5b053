package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/sandboxmd"
)

// launchCmd runs claude (or a shell) in the sandbox, or prints the command.
type launchCmd struct {
	DryRun bool
	Shell  bool
	Env    []string
	Args   []string
}

// session is what a launch has worked out before it touches anything.
type session struct {
	bwrap    string
	home     string
	stateDir string
	plan     mount.Plan
}

// Run validates everything first and creates nothing until all of it is
// known to be right; then it prepares the instance and execs bwrap.
func (l launchCmd) Run() error {
	s, err := l.prepare()
	if err != nil {
		return err
	}
	if l.DryRun {
		fmt.Print(s.plan.Script(s.bwrap))
		return nil
	}
	if err := s.materialize(); err != nil {
		return err
	}
	argv := append([]string{"bwrap"}, s.plan.Args()...)
	return unix.Exec(s.bwrap, argv, s.plan.Environ(mount.OSLookup))
}

func (l launchCmd) prepare() (session, error) {
	home, err := homeDir()
	if err != nil {
		return session{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return session{}, withHint("cd into your project again", "the current directory no longer exists")
	}
	project, err := instance.Resolve(cwd)
	if err != nil {
		return session{}, withHint("cd into your project again", "cannot resolve the current directory: %v", err)
	}
	cwd, _ = filepath.EvalSymlinks(cwd)
	if err := checkProject(project.Checkout, home); err != nil {
		return session{}, err
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return session{}, withHint("install bubblewrap, e.g. sudo apt-get install bubblewrap", "bwrap not found on PATH")
	}
	command := []string{"claude"}
	if l.Shell {
		command = []string{"bash"}
	}
	prog, err := exec.LookPath(command[0])
	if err != nil {
		if l.Shell {
			return session{}, withHint("install bash", "bash not found on PATH")
		}
		return session{}, withHint("install Claude Code: npm install -g @anthropic-ai/claude-code", "claude not found on PATH")
	}
	command = append([]string{prog}, l.Args...)
	env, err := mount.Environment(os.Environ(), l.Env)
	if err != nil {
		return session{}, withHint("export the variable first, or drop the flag", "%v", err)
	}
	stateDir := filepath.Join(home, ".claudebox")
	host := mount.Probe(home, stateDir, prog)
	if host.SandboxLogin {
		if _, err := os.Stat(filepath.Join(home, ".claude", ".credentials.json")); err != nil {
			// Overlaying a file that does not exist would leave an empty
			// read-only one in the real ~/.claude, breaking the host's login.
			return session{}, withHint("log in once with claude on the host, or remove "+mount.SandboxLoginFile(stateDir)+" to use the host's login",
				"%s is a separate sandbox login, but ~/.claude/.credentials.json does not exist to overlay", mount.SandboxLoginFile(stateDir))
		}
	}
	plan := mount.Build(mount.Inputs{
		Home:     home,
		StateDir: stateDir,
		Project:  project,
		Cwd:      cwd,
		Host:     host,
		Env:      env,
		Network:  true,
		Command:  command,
		Claude:   !l.Shell,
	})
	return session{bwrap: bwrap, home: home, stateDir: stateDir, plan: plan}, nil
}

// homeDir returns $HOME, which must name an existing directory.
func homeDir() (string, error) {
	home := os.Getenv("HOME")
	if home == "" {
		return "", withHint("set HOME to your home directory", "HOME is not set")
	}
	if !filepath.IsAbs(home) {
		return "", withHint("set HOME to an absolute path", "HOME is not absolute: %s", home)
	}
	fi, err := os.Stat(home)
	if err != nil || !fi.IsDir() {
		return "", withHint("set HOME to your home directory", "HOME is not a directory: %s", home)
	}
	return filepath.EvalSymlinks(home)
}

// checkProject refuses project directories whose read-write bind would
// expose what the sandbox exists to hide.
func checkProject(checkout, home string) error {
	hint := "cd into a project directory first"
	switch {
	case checkout == "/" || home == checkout || isWithin(home, checkout):
		return withHint(hint, "refusing to bind %s read-write: it contains your home directory", checkout)
	case isWithin(checkout, filepath.Join(home, ".claude")) || isWithin(checkout, filepath.Join(home, ".claudebox")):
		return withHint(hint, "refusing to use %s as a project: it holds Claude's or claudebox's state", checkout)
	}
	return nil
}

// isWithin reports whether path is dir or below it.
func isWithin(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// materialize creates what the plan binds: the instance with its
// project-root, SANDBOX.md and claude.json, the history file, and the
// mount points in the real ~/.claude, so that bwrap never creates one (it
// would leave an empty read-only file behind on the host).
func (s session) materialize() error {
	if err := os.MkdirAll(s.stateDir, 0o700); err != nil || unix.Access(s.stateDir, unix.W_OK) != nil {
		return withHint("fix its ownership or permissions: chmod u+rwx "+s.stateDir, "%s is not writable", s.stateDir)
	}
	dir, err := instance.Ensure(s.stateDir, s.plan.Project.Root)
	if errors.Is(err, instance.ErrOtherRoot) {
		return withHint("move the instance directory aside if you edited it by hand", "%v", err)
	}
	if err != nil {
		return err
	}
	claudeDir := filepath.Join(s.home, ".claude")
	for _, d := range []string{claudeDir, filepath.Join(claudeDir, "projects")} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	// An empty history is what Claude Code itself starts from: creating one
	// (user-writable) is the only way to overlay it without a read-only
	// mount-point file.
	for _, f := range []string{mount.HistoryFile(s.stateDir), filepath.Join(claudeDir, "history.jsonl")} {
		fh, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		fh.Close()
	}
	if err := instance.WriteFileIfChanged(filepath.Join(dir, mount.SandboxMDFile), sandboxmd.Render(s.plan), 0o600); err != nil {
		return err
	}
	return instance.SyncClaudeJSON(filepath.Join(s.home, ".claude.json"), filepath.Join(dir, instance.ClaudeJSONFile), trustPaths(s.plan.Chdir))
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
