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
	"github.com/claudebox/claudebox/sandboxmd"
)

// agentOf is the agent a launch runs: Claude unless --agent names another.
func agentOf(o Options) agent.Agent {
	if o.Agent.Name == "" {
		return agent.Claude
	}
	return o.Agent
}

// agentConfig is what the plan shows of another agent's configuration,
// for the login the proxy holds (cred; nil with no network); nil for
// Claude (and a shell), whose is always there. The agent's arguments go
// before the user's.
func agentConfig(home string, a agent.Agent, conf config.Launch, command []string, cred *proxy.Credential) (*mount.AgentConfig, []string, error) {
	if a.IsClaude() {
		return nil, command, nil
	}
	kind := a.Key
	if cred != nil {
		kind = cred.Kind
	}
	// On the host's network the proxy's port is known once it listens
	// (Session.startProxy puts it in).
	url := mount.APIURL
	if conf.Network == config.NetworkHost {
		url = mount.HostAPIURL
	}
	_, args := a.Resolved(home, url, kind)
	return probe.Agent(home, a, url, kind), append(append([]string{command[0]}, args...), command[1:]...), nil
}

// agentCredential finds another agent's login for the proxy: its API key,
// else its own login of another kind (Codex's ChatGPT login).
func agentCredential(o Options, a agent.Agent, env environment.Env) (*proxy.Credential, *mount.API, error) {
	cred, ok := a.FindKey(o.Home.Dir, env.APILookup)
	if !ok {
		tokenURL := proxy.CodexTokenURL
		if u := os.Getenv(codexTokenURLVariable); u != "" {
			tokenURL = u
		}
		cred, ok = a.FindLogin(o.Home.Dir, o.Home.State, tokenURL)
	}
	switch {
	case ok && cred.Kind.Variable() == "":
		return cred, &mount.API{Login: filepath.Join("~", a.ConfigDir, a.LoginFile), Source: cred.Source}, nil
	case ok:
		return cred, &mount.API{Variable: cred.Kind.Variable(), Source: cred.Source}, nil
	case o.OnlyApproved:
		return nil, nil, nil
	}
	return nil, nil, hint.Errorf("log "+a.Name+" in on the host, or export "+a.Key.Variable()+" there (Gemini's Google login is not supported yet)",
		"no %s login on the host: %s inside the sandbox could not reach its API", a.Name, a.Name)
}

// agentUpstream is the API the proxy forwards another agent's calls to:
// for a ChatGPT login, the ChatGPT backend; else the user's own base URL,
// else the agent's.
func agentUpstream(a agent.Agent, env environment.Env, cred *proxy.Credential) string {
	if cred != nil && cred.Kind == proxy.ChatGPTLogin {
		if u := os.Getenv(chatGPTURLVariable); u != "" {
			return u
		}
		return proxy.ChatGPTUpstream
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

// agentData is a data mount's content, with what exists only once the
// session starts put in the agent's files: the proxy's phantom in its
// phantom login (the plan, and --dry-run, hold proxy.PhantomMark), and
// SANDBOX.md's text after the user's global instructions.
func (s *Session) agentData(m mount.Mount) []byte {
	a := s.plan.Agent
	switch {
	case a == nil || m.Src != "":
	case m.Dest == a.Login && s.proxy != nil:
		return []byte(strings.ReplaceAll(m.Content, proxy.PhantomMark, s.proxy.Phantom))
	case m.Dest == a.Instructions:
		own := m.Content
		if own != "" && !strings.HasSuffix(own, "\n") {
			own += "\n"
		}
		if own != "" {
			own += "\n"
		}
		return append([]byte(own), sandboxmd.Render(s.plan)...)
	}
	return []byte(m.Content)
}
