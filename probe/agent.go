package probe

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
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
		fi, err := os.Stat(path)
		switch {
		case err != nil || !fi.Mode().IsRegular() && !fi.IsDir() || path == c.Instructions:
		case name == a.Extensions && fi.IsDir():
			des, _ := os.ReadDir(path)
			for _, de := range des {
				if ext := filepath.Join(path, de.Name()); de.IsDir() {
					own, leftOut := extensionCredentials(home, ext, a)
					c.Entries, c.Own, c.CredentialsLeftOut = append(c.Entries, ext), append(c.Own, own...), append(c.CredentialsLeftOut, leftOut...)
				}
			}
		default:
			c.Entries = append(c.Entries, path)
		}
	}
	// A clone in what is shown (an extension installed from git, a skill)
	// keeps its remote's URL, token and all.
	tilde := func(p string) string { return tildePath(p, home) }
	c.Entries = slices.DeleteFunc(c.Entries, func(e string) bool {
		if fi, err := os.Stat(e); err != nil || !fi.IsDir() {
			return false
		}
		own, leftOut, whole := cloneCredentials(e, e, mount.AgentFiles, tilde)
		if !whole {
			c.CredentialsLeftOut = append(c.CredentialsLeftOut, "all of "+tilde(e)+" (claudebox cannot look through it whole for git configurations that may hold a credential: over 32 levels or 4,000 directories)")
			return true
		}
		c.Own, c.CredentialsLeftOut = append(c.Own, own...), append(c.CredentialsLeftOut, leftOut...)
		return false
	})
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

// extensionCredentials hides what an extension's directory ext holds of
// the user's credentials (own, named in leftOut): its settings (a
// service's key) and the credentials in the URL it was installed from.
func extensionCredentials(home, ext string, a agent.Agent) (own []mount.Mount, leftOut []string) {
	for _, name := range a.ExtensionSecrets {
		if path := filepath.Join(ext, name); paths.Exists(path) {
			own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: path, Why: "empty: an extension's settings, which may hold your key to a service", Role: mount.AgentFiles})
			leftOut = append(leftOut, "all of "+tildePath(path, home))
		}
	}
	for _, name := range a.ExtensionRecords {
		path := filepath.Join(ext, name)
		if !paths.Exists(path) {
			continue
		}
		b, _, err := untrusted.ReadResolved(path, 1<<20)
		redacted, had := claudesettings.WithoutURLCredentials(b)
		switch {
		case err != nil:
			own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: path, Why: "empty: claudebox cannot read it whole to leave out a credential", Role: mount.AgentFiles})
			leftOut = append(leftOut, "all of "+tildePath(path, home))
		case had:
			own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: path, Content: string(redacted), Why: "a private copy without the credentials in its URLs", Role: mount.AgentFiles})
			leftOut = append(leftOut, "the credentials in URLs in "+tildePath(path, home))
		}
	}
	return own, leftOut
}

// readSmall is a regular file of at most 1 MiB, nil for anything else;
// no link made after its links were resolved is followed.
func readSmall(path string) []byte {
	b, _, _ := untrusted.ReadResolved(path, 1<<20)
	return b
}
