package probe

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// agentConfig reads the configuration directory of a (not Claude, whose rules
// are Host's) for the plan: which of the entries its row shows exist. url
// is the proxy's address inside; carried, the MCP servers of its
// configuration the user carries in.
func agentConfig(home string, a agent.Agent, url string, carried []string) *mount.AgentConfig {
	dir := filepath.Join(home, a.ConfigDir)
	c := &mount.AgentConfig{Name: a.Name, Dir: dir, State: a.State, SandboxOff: a.SandboxOff}
	if a.SavedConfig != "" {
		c.Config = filepath.Join(dir, a.SavedConfig)
		c.ConfigCopy = filepath.Join(dir, agent.ConfigState, a.SavedConfig)
	}
	for _, s := range a.Secrets {
		c.Secrets = append(c.Secrets, filepath.Join(dir, s))
	}
	// The first of its instruction files the host has, else the last.
	for _, name := range a.Instructions {
		c.Instructions = filepath.Join(dir, name)
		if host := readSmall(c.Instructions); host != nil {
			c.InstructionsHost = string(host)
			break
		}
	}
	for _, name := range a.Shown {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && (fi.Mode().IsRegular() || fi.IsDir()) && path != c.Instructions {
			c.Entries = append(c.Entries, path)
		}
	}
	for _, name := range a.Copies {
		if cp, ok := homeCopy(filepath.Join(dir, name), bind.Secrets(home)); ok {
			c.Copies = append(c.Copies, cp)
		}
	}
	if a.Settings != "" {
		path := filepath.Join(dir, a.Settings)
		host := readSmall(path)
		content, leftOut := a.SettingsCopy(host, carried)
		c.Data, c.LeftOut = map[string]string{path: string(content)}, leftOut
		if a.ContextNames != nil {
			for _, name := range a.ContextNames(host) {
				if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
					c.Entries = append(c.Entries, filepath.Join(dir, name))
				}
			}
		}
	}
	if content := a.PhantomLogin(home); content != "" {
		c.Login, c.LoginContent = filepath.Join(dir, a.LoginFile), content
	}
	c.Env, _ = a.Resolved(home, url)
	return c
}

// readSmall is a regular file of at most 1 MiB, nil for anything else;
// no link made after its links were resolved is followed.
func readSmall(path string) []byte {
	b, _, _ := untrusted.ReadResolved(path, 1<<20)
	return b
}
