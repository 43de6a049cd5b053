package probe

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/proxy"
)

// Agent reads the configuration directory of a (not Claude, whose rules
// are Host's) for the plan: which of the entries its row shows exist. url
// is the proxy's address inside; k, the kind of login the proxy holds.
func Agent(home string, a agent.Agent, url string, k proxy.Kind) *mount.AgentConfig {
	dir := filepath.Join(home, a.ConfigDir)
	c := &mount.AgentConfig{Name: a.Name, Dir: dir, State: a.State, SandboxOff: a.SandboxOff}
	if a.SavedConfig != "" {
		c.Config = filepath.Join(dir, a.SavedConfig)
		c.ConfigCopy = filepath.Join(dir, agent.ConfigState, a.SavedConfig)
	}
	for _, s := range a.Secrets {
		c.Secrets = append(c.Secrets, filepath.Join(dir, s))
	}
	for i, name := range a.Instructions {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if err == nil && fi.Mode().IsRegular() && fi.Size() <= maxInstructions {
			b, _ := os.ReadFile(path)
			c.Instructions, c.InstructionsContent = path, string(b)
			break
		}
		if i == len(a.Instructions)-1 {
			c.Instructions = path
		}
	}
	for _, name := range a.Shown {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && (fi.Mode().IsRegular() || fi.IsDir()) && path != c.Instructions {
			c.Entries = append(c.Entries, path)
		}
	}
	for _, name := range a.Copies {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			c.Copies = append(c.Copies, filepath.Join(dir, name))
		}
	}
	if a.Settings != "" {
		path := filepath.Join(dir, a.Settings)
		var host []byte
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() <= 1<<20 {
			host, _ = os.ReadFile(path)
		}
		c.Data = map[string]string{path: string(a.SettingsContent(host))}
	}
	if content := a.PhantomLogin(home, k); content != "" {
		c.Login, c.LoginContent = filepath.Join(dir, a.LoginFile), content
	}
	c.Env, _ = a.Resolved(home, url, k)
	return c
}

// maxInstructions bounds the user's global instructions copied in.
const maxInstructions = 1 << 20
