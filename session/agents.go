package session

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/proxy"
)

// agentOf is the agent a launch runs: Claude unless --agent names another.
func agentOf(o Options) agent.Agent {
	if o.Agent.Name == "" {
		return agent.Claude
	}
	return o.Agent
}

// agentConfig is what the plan shows of another agent's configuration;
// nil for Claude (and a shell), whose is always there. The agent's
// arguments go before the user's.
func agentConfig(home string, a agent.Agent, conf config.Launch, command []string) (*mount.AgentConfig, []string, error) {
	if a.IsClaude() {
		return nil, command, nil
	}
	if conf.Network == config.NetworkHost && a.AddressInArgs() {
		// Its proxy's address is fixed only on the filtered network, and
		// Codex takes it in its arguments.
		return nil, nil, hint.Errorf("launch it on the filtered network (the default), or --network=none", "--agent %s does not run with --network=host yet", a.Name)
	}
	_, args := a.Resolved(home, mount.APIURL)
	return probe.Agent(home, a, mount.APIURL), append(append([]string{command[0]}, args...), command[1:]...), nil
}

// agentCredential finds another agent's API key for the proxy.
func agentCredential(o Options, a agent.Agent, env environment.Env) (*proxy.Credential, *mount.API, error) {
	cred, ok := a.FindKey(o.Home.Dir, env.APILookup)
	if !ok {
		cred, ok = FindAgentLogin(o.Home, a)
	}
	switch {
	case ok:
		return cred, &mount.API{Variable: cred.Kind.Variable(), Source: cred.Source, Address: a.AddressVariable()}, nil
	case o.OnlyApproved:
		return nil, nil, nil
	}
	if a.LoginFile != "" {
		return nil, nil, hint.Errorf("log in on the host first: run "+a.Program+" there",
			"no %s login on the host (%s): %s inside the sandbox could not reach its API", a.Name, filepath.Join("~", a.ConfigDir, a.LoginFile), a.Name)
	}
	return nil, nil, hint.Errorf("export "+a.Key.Variable()+" on the host (its ChatGPT login is not supported yet)",
		"no %s API key on the host: %s inside the sandbox could not reach its API", a.Name, a.Name)
}

// agentUpstream is the API the proxy forwards another agent's calls to:
// the user's own base URL, else the agent's.
func agentUpstream(a agent.Agent, env environment.Env) string {
	if u, ok := env.APILookup(a.BaseURLVariable); ok && u != "" {
		return u
	}
	return a.Upstream
}

// makeAgentState creates every agent's state entries in the instance dir,
// none through a symlink: the sandbox of a session that shows the instance
// whole could have planted one where an entry is missing, to have a later
// session bind what it points to.
func makeAgentState(dir string) error {
	for _, e := range agent.StateEntries() {
		path := filepath.Join(dir, e)
		if strings.HasSuffix(e, "/") {
			err := os.Mkdir(path, 0o700)
			if err != nil && !os.IsExist(err) {
				return err
			}
			var st unix.Stat_t
			if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
				return hint.Errorf("move it aside: the sandbox may have put it there", "%s is not a directory", path)
			}
			continue
		}
		if err := createEmpty(path); err != nil {
			return hint.Errorf("move it aside: the sandbox may have put it there", "cannot create %s: %v", path, err)
		}
	}
	return nil
}
