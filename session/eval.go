package session

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/proxy"
)

// EvalOptions are what an eval run asks of its sandbox: a launch with
// them (Options.Eval) runs the host's system and the claude to run, the
// run's own ~/.claude and workspace, and nothing of the user's
// configuration, project or instance.
type EvalOptions struct {
	// Project is the project the workspace is a copy of (EvalProject).
	Project instance.Project
	// Claude is the claude to run; "" finds it on PATH.
	Claude string
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

// settleEval is an eval run's settings: its own, none of the user's. The
// host's environment is read for the API's address and credential only
// (the proxy's); the sandbox gets evalEnv and SetEnv.
func settleEval(o Options) (settings, error) {
	env, err := environment.Resolve(append(os.Environ(), claudesettings.APIEnv(o.Home.Dir)...), nil, nil)
	if err != nil {
		return settings{}, err
	}
	set := settings{
		project: o.Eval.Project, state: o.Home.stateDirs(), env: env,
		conf: config.Launch{
			Network: o.Eval.Network, Hosts: proxy.Policy{Allow: o.Eval.Allow},
			// Runs many at once: each stops a fork bomb at the default bound.
			Limits: limits.Limits{Tasks: limits.DefaultTasks},
		},
	}
	for _, n := range evalEnv {
		if _, ok := os.LookupEnv(n); ok {
			set.evalEnv = append(set.evalEnv, n)
		}
	}
	return set, nil
}

// queryEval is what the probe reads for an eval run: the claude to run
// (by the path --claude names, or on PATH), the host's system, its CA
// bundles and the user's Claude login.
func (set settings) queryEval(o Options) probe.Query {
	program := o.Eval.Claude
	switch {
	case program == "":
		program = "claude"
	case !strings.Contains(program, "/"):
		program = "./" + program
	}
	return probe.Query{
		Home: o.Home.Dir, State: o.Home.State, Project: set.project, Program: program, Getenv: os.Getenv, Environ: os.Environ(), StateDirs: set.state,
		Agent: agent.Claude, APILookup: set.env.APILookup,
		ClaudeLogin: set.conf.Network != config.NetworkNone,
	}
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
	err = s.runBwrap(ctx, s.plan, stdout, stderr)
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
