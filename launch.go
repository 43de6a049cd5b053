package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

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
	return unix.Exec(s.bwrap, argv, s.plan.Environ(os.LookupEnv))
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
	if host.SandboxLogin && !host.LoginOnHost {
		// An empty credentials file on the host would break the host's
		// login, so this overlay target cannot be created like the others.
		return session{}, withHint("log in once with claude on the host, or remove "+mount.SandboxLoginFile(stateDir)+" to use the host's login",
			"%s is a separate sandbox login, but ~/.claude/.credentials.json does not exist to overlay", mount.SandboxLoginFile(stateDir))
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
	case checkout == "/" || home == checkout || instance.Within(home, checkout):
		return withHint(hint, "refusing to bind %s read-write: it contains your home directory", checkout)
	case instance.Within(checkout, filepath.Join(home, ".claude")) || instance.Within(checkout, filepath.Join(home, ".claudebox")):
		return withHint(hint, "refusing to use %s as a project: it holds Claude's or claudebox's state", checkout)
	}
	return nil
}

// materialize creates what the plan binds: the instance with its
// project-root, SANDBOX.md and claude.json, the history file, and then the
// plan's host mount points, so that bwrap never creates one itself.
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
	if err := createEmpty(mount.HistoryFile(s.stateDir)); err != nil {
		return err
	}
	if err := instance.WriteFileIfChanged(filepath.Join(dir, mount.SandboxMDFile), sandboxmd.Render(s.plan), 0o600); err != nil {
		return err
	}
	if err := instance.SyncClaudeJSON(filepath.Join(s.home, ".claude.json"), filepath.Join(dir, instance.ClaudeJSONFile), trustPaths(s.plan.Chdir)); err != nil {
		return err
	}
	// The real ~/.claude is bound even before Claude Code's first run.
	if err := os.MkdirAll(filepath.Join(s.home, ".claude"), 0o700); err != nil {
		return err
	}
	// A missing mount point is created the way Claude Code would create it:
	// an empty user-writable file or directory, not bwrap's read-only one.
	for _, m := range s.plan.HostMountPoints() {
		if _, err := os.Lstat(m.Dest); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if fi, err := os.Stat(m.Src); err == nil && fi.IsDir() {
			err = os.MkdirAll(m.Dest, 0o700)
		} else {
			err = createEmpty(m.Dest)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// createEmpty creates path as an empty 0600 file unless it exists.
func createEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
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
