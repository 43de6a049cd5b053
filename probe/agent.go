package probe

import (
	"os"
	"path/filepath"
	"slices"

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
	var extensions []string
	for _, name := range a.Shown {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		switch {
		case err != nil || !fi.Mode().IsRegular() && !fi.IsDir() || path == c.Instructions:
		case name == a.Extensions && fi.IsDir():
			des, _ := os.ReadDir(path)
			for _, de := range des {
				if ext := filepath.Join(path, de.Name()); de.IsDir() {
					entries, own, leftOut, ok := extensionShown(home, ext, a)
					if ok {
						c.Frozen = append(c.Frozen, ext)
					}
					extensions, c.Own, c.CredentialsLeftOut = append(extensions, entries...), append(c.Own, own...), append(c.CredentialsLeftOut, leftOut...)
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
		c.Own, c.CredentialsLeftOut = append(c.Own, own...), append(c.CredentialsLeftOut, leftOut...)
		return !whole
	})
	c.Entries = append(c.Entries, extensions...)
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

// extensionShown is what the sandbox gets of an extension's directory
// ext: its entries as the launch found them (entries, each shown
// read-only in a directory of the sandbox's, so that what the host's
// gemini writes there during the session, its settings or a clone, is
// not shown), but for its settings (ExtensionSecrets, a service's key),
// which are left out, and where it was installed from (ExtensionRecords),
// a private copy without the credentials in its URLs (own). Its git
// directories are hidden, as in every directory shown; one that cannot be
// looked through whole is not shown (ok false).
func extensionShown(home, ext string, a agent.Agent) (entries []string, own []mount.Mount, leftOut []string, ok bool) {
	tilde := func(p string) string { return tildePath(p, home) }
	own, leftOut, ok = cloneCredentials(ext, ext, mount.AgentFiles, tilde)
	if !ok {
		return nil, nil, leftOut, false
	}
	des, _ := os.ReadDir(ext)
	for _, de := range des {
		path := filepath.Join(ext, de.Name())
		switch {
		case slices.Contains(a.ExtensionSecrets, de.Name()):
			leftOut = append(leftOut, "all of "+tilde(path))
		case slices.Contains(a.ExtensionRecords, de.Name()):
			m, note, shown := launchCopy(path, mount.AgentFiles, tilde)
			if shown {
				own = append(own, m)
			}
			if note != "" {
				leftOut = append(leftOut, note)
			}
		case de.Type().IsRegular() || de.IsDir():
			// A link is not followed out of the extension.
			entries = append(entries, path)
		}
	}
	return entries, own, leftOut, true
}

// readSmall is a regular file of at most 1 MiB, nil for anything else;
// no link made after its links were resolved is followed.
func readSmall(path string) []byte {
	b, _, _ := untrusted.ReadResolved(path, 1<<20)
	return b
}
