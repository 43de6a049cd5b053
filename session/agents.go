package session

import (
	"cmp"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/untrusted"
)

// agentOf is the agent a launch runs: Claude unless --agent names another.
func agentOf(o Options) agent.Agent {
	if o.Agent.Name == "" {
		return agent.Claude
	}
	return o.Agent
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

// maxKeptState bounds a kept state file: Claude Code's verdicts on a
// user's MCP servers take a few hundred bytes, and it reads them whole.
const maxKeptState = 1 << 20

// pruneAgentState removes from the agents' state directories in the
// instance dir that keep only some entries (KeptState) every other entry
// the last session left there, and a kept name that is not a regular file
// of at most maxKeptState bytes, never following a link.
func pruneAgentState(dir string) error {
	for _, a := range agent.All {
		for sub, kept := range a.KeptState {
			sub = filepath.Join(instance.AgentsDir, a.Name, sub)
			var failed error
			err := untrusted.EachEntry(dir, sub, func(e fs.DirEntry) {
				name := filepath.Join(sub, e.Name())
				if slices.Contains(kept, e.Name()) {
					if fi, err := untrusted.Lstat(dir, name); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxKeptState {
						return
					}
				}
				if err := untrusted.RemoveAll(dir, name); err != nil && failed == nil {
					failed = err
				}
			})
			if err = cmp.Or(err, failed); err != nil {
				return hint.Errorf("move it aside: the sandbox may have put it there", "cannot clear %s: %v", filepath.Join(dir, sub), err)
			}
		}
	}
	return nil
}

// agentCopy says dest is one of the agent's private copies of what it
// saves (its trust answers).
func (s *Session) agentCopy(dest string) bool {
	a := s.plan.Agent
	return a != nil && slices.ContainsFunc(a.Copies, func(c mount.Copy) bool { return c.Path == dest })
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
