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
// nil for Claude (and a shell), whose is always there. a is the row as it
// runs with the host's login (ForHost); carried, the MCP servers of its
// configuration the user carries in. The agent's arguments go before the
// user's.
func agentConfig(home string, a agent.Agent, conf config.Launch, command, carried []string) (*mount.AgentConfig, []string) {
	if a.IsClaude() {
		return nil, command
	}
	// On the host's network the proxy's port is known once it listens
	// (Session.startProxy puts it in).
	url := mount.APIURL
	if conf.Network == config.NetworkHost {
		url = mount.HostAPIURL
	}
	_, args := a.Resolved(home, url)
	return probe.Agent(home, a, url, carried), append(append([]string{command[0]}, args...), command[1:]...)
}

// agentCredential finds another agent's login for the proxy: its API key,
// else its own OAuth login (Codex's ChatGPT login, Gemini's Google login),
// which the proxy refreshes on the host.
func agentCredential(o Options, a agent.Agent, env environment.Env) (*proxy.Credential, *mount.API, error) {
	cred, ok := a.FindKey(o.Home.Dir, env.APILookup)
	if !ok {
		cred, ok = a.FindLogin(o.Home.Dir, o.Home.State, os.Getenv(tokenURLVariable))
	}
	switch {
	case ok && cred.Kind.Variable() == "":
		return cred, &mount.API{Login: filepath.Join("~", a.ConfigDir, a.LoginFile), Source: cred.Source, Address: a.AddressVariable()}, nil
	case ok:
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

// agentUpstream is the API the proxy forwards another agent's calls to:
// the user's own base URL, else the agent's (for a ChatGPT login, the
// ChatGPT backend, which tests replace).
func agentUpstream(a agent.Agent, env environment.Env) string {
	if a.Key == proxy.ChatGPTLogin {
		if u := os.Getenv(chatGPTURLVariable); u != "" {
			return u
		}
	}
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

// agentData is a data mount's content, with the proxy's phantom put in
// the agent's phantom login (the plan, and --dry-run, hold
// proxy.PhantomMark): it exists only once the session starts.
func (s *Session) agentData(m mount.Mount) []byte {
	if a := s.plan.Agent; a != nil && m.Src == "" && m.Dest == a.Login && s.proxy != nil {
		return []byte(strings.ReplaceAll(m.Content, proxy.PhantomMark, s.proxy.Phantom))
	}
	return []byte(m.Content)
}
