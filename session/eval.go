package session

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/proxy"
)

// EvalOptions are what an eval run asks of its sandbox.
type EvalOptions struct {
	Home Home
	// Project is the project the workspace is a copy of (EvalProject).
	Project instance.Project
	// Claude is the claude to run; "" finds it on PATH.
	Claude string
	// Args are claude's arguments.
	Args []string
	// Network is config.NetworkFiltered, NetworkHost or NetworkNone; Allow,
	// what the filtered network lets through besides the API.
	Network string
	Allow   []proxy.Rule
	// Eval is the run's own directories; Socket, where the filtered
	// network's proxy listens (in a directory only the user can enter).
	Eval   mount.Eval
	Socket string
	// SetEnv are the variables the run fixes (time zone, locale, …).
	SetEnv []string
}

// evalEnv are the host's variables an eval run passes in: what finds
// programs, nothing of the user's own configuration (no TERM: the run
// has no terminal, and the same environment on every machine).
var evalEnv = []string{"HOME", "PATH"}

// PrepareEval builds the sandbox of one eval run: the host's system and
// the claude to run, the run's own ~/.claude and workspace, and nothing of
// the user's configuration, project or instance. It creates nothing.
func PrepareEval(o EvalOptions) (*Session, error) {
	home := o.Home.Dir
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, hint.Errorf("install bubblewrap, e.g. sudo apt-get install bubblewrap", "bwrap not found on PATH")
	}
	prog := o.Claude
	if prog == "" {
		if prog, err = exec.LookPath("claude"); err != nil {
			return nil, hint.Errorf("install Claude Code: npm install -g @anthropic-ai/claude-code, or name it with --claude PATH", "claude not found on PATH")
		}
	}
	if prog, err = filepath.Abs(prog); err == nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(prog)); err == nil {
			prog = filepath.Join(dir, filepath.Base(prog))
		}
	}
	if fi, err := os.Stat(prog); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, hint.Errorf("name an executable claude with --claude PATH", "%s is not an executable file", prog)
	}
	if p := Provider(); p != "" {
		return nil, hint.Errorf("unset "+p+" for the eval run", "eval runs reach Anthropic's API through claudebox's proxy, not a cloud provider's (%s is set)", p)
	}
	state := o.Home.stateDirs()
	host := probe.Host(home, o.Home.State, o.Project, prog, os.Getenv, nil, state, nil, nil)
	// The host's environment is read for the API's address and credential
	// only (the proxy's); the sandbox gets evalEnv and SetEnv.
	env, err := environment.Resolve(append(os.Environ(), claudesettings.APIEnv(home)...), nil, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range evalEnv {
		if _, ok := os.LookupEnv(n); ok {
			names = append(names, n)
		}
	}
	in := mount.Inputs{
		Home: home, StateDir: o.Home.State, Host: host,
		Env:     mount.Env{Names: names},
		Network: o.Network == config.NetworkHost,
		Command: append([]string{prog}, o.Args...),
		Eval:    &o.Eval,
		SetEnv:  o.SetEnv,
		// Runs many at once: each stops a fork bomb at the default bound.
		Limits: limits.Limits{Tasks: limits.DefaultTasks},
	}
	s := &Session{agent: agent.Claude, bwrap: bwrap, home: home, stateDir: o.Home.State, runFiles: newRunStem(o.Home.State, ""), env: env, hosts: proxy.Policy{Allow: o.Allow}}
	// The proxy trusts the host's CA bundles, read now, as a launch's does.
	s.caPEM = probe.CAs(home, o.Project.Checkout, nil, state, os.Getenv).PEM
	if o.Network != config.NetworkNone {
		cred, err := FindCredential(o.Home, env)
		if err != nil {
			return nil, noLogin()
		}
		s.cred = cred
		in.API = &mount.API{Variable: cred.Kind.Variable(), Source: cred.Source, Address: mount.ClaudeAPIAddress}
	}
	if o.Network == config.NetworkFiltered {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			return nil, hint.Errorf("run with --network=host or --network=none", "cannot find claudebox's own executable, which relays the filtered network: %v", err)
		}
		in.Relay = &mount.Relay{Exe: exe, Socket: o.Socket}
	}
	s.plan = mount.Build(in)
	s.landlock, _ = probe.LandlockScoping(bwrap)
	return s, nil
}

// RunEval runs the eval run's sandbox to its end, with no terminal: stdin
// empty, the command's output to stdout and stderr; ctx's end is forwarded
// to it as SIGTERM. It returns the command's exit status.
func (s *Session) RunEval(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	stop, err := s.startProxy()
	if err != nil {
		return 0, err
	}
	defer stop()
	files, err := s.descriptors()
	if err != nil {
		return 0, err
	}
	cmd := s.bwrapCmd(s.plan, files)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	watcher, err := startPlan(cmd, s.startChild, s.plan, nil)
	closeAll(files)
	if err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(unix.SIGTERM)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	stopErr := watcher.Stop()
	if failed := bwrapFailed(watcher, err); failed != nil {
		return 0, failed
	}
	if stopErr != nil {
		return 0, stopErr
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return statusOf(exit.ProcessState), nil
	}
	return 0, err
}

// EvalProject is the project an eval run copies: the current directory's,
// under the rules of a launch's (never the home itself, nor claudebox's
// state).
func EvalProject(h Home) (instance.Project, error) {
	_, project, err := Here()
	if err != nil {
		return project, err
	}
	return project, checkProject(project.Checkout, h.Dir, h.stateDirs())
}
