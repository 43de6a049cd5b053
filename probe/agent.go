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
func agentConfig(home string, a agent.Agent, url string, carried []string, project string) *mount.AgentConfig {
	dir := filepath.Join(home, a.ConfigDir)
	c := &mount.AgentConfig{Name: a.Name, Dir: dir, State: a.State, SandboxOff: a.SandboxOff}
	if a.SavedConfig != "" {
		c.Config = filepath.Join(dir, a.SavedConfig)
		c.ConfigCopy = filepath.Join(dir, agent.ConfigState, a.SavedConfig)
	}
	for _, s := range a.Secrets {
		c.Secrets = append(c.Secrets, filepath.Join(dir, s))
	}
	tilde := func(p string) string { return tildePath(p, home) }
	// The first of its instruction files the host has, else the last;
	// yours, and every file shown, judged as ~/.claude's CLAUDE.md is: a
	// token written in AGENTS.md was readable inside.
	for _, name := range a.Instructions {
		c.Instructions = filepath.Join(dir, name)
		if host := readSmall(c.Instructions); host != nil {
			if credentialFile(c.Instructions) {
				c.CredentialsLeftOut = append(c.CredentialsLeftOut, credentialFileNote(tilde(c.Instructions)))
			} else {
				c.InstructionsHost = string(host)
			}
			break
		}
	}
	// A clone in a directory shown (an extension installed from git, a
	// skill) is hidden: its configuration keeps its remote's URL, token
	// and all; where clones go, the directory is frozen too.
	show := func(f frozenView) {
		c.Frozen, c.Links = append(c.Frozen, f.frozen...), append(c.Links, f.links...)
		c.Entries, c.Own, c.CredentialsLeftOut = append(c.Entries, f.entries...), append(c.Own, f.own...), append(c.CredentialsLeftOut, f.leftOut...)
	}
	for _, name := range a.Shown {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		switch {
		case err != nil || !fi.Mode().IsRegular() && !fi.IsDir() || path == c.Instructions:
		case fi.IsDir() && (cloneTargets[name] || name == a.Extensions):
			f := showFrozen(path, mount.AgentFiles, tilde)
			if name == a.Extensions {
				f = extensionsShown(f, a, tilde, project)
			}
			show(f)
		case fi.IsDir():
			own, leftOut, whole := cloneCredentials(path, path, mount.AgentFiles, tilde)
			if c.CredentialsLeftOut = append(c.CredentialsLeftOut, leftOut...); whole {
				c.Entries, c.Own = append(c.Entries, path), append(c.Own, own...)
			}
		case credentialFile(path):
			c.CredentialsLeftOut = append(c.CredentialsLeftOut, credentialFileNote(tilde(path)))
		default:
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
				path := filepath.Join(dir, name)
				if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
					continue
				}
				if credentialFile(path) {
					c.CredentialsLeftOut = append(c.CredentialsLeftOut, credentialFileNote(tilde(path)))
				} else {
					c.Entries = append(c.Entries, path)
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

// extensionsShown is what the sandbox gets of the directory of the
// extensions (f, shown as any directory is): each extension's entries as
// the launch found them too (so that what the host's gemini writes there
// during the session, its settings or a clone, is not shown), but for its
// settings (ExtensionSecrets, a service's key), which are left out, and
// where it was installed from (ExtensionRecords), a private copy without
// the credentials in its URLs.
func extensionsShown(f frozenView, a agent.Agent, tilde func(string) string, project string) frozenView {
	var out frozenView
	out.frozen, out.links, out.own, out.leftOut = f.frozen, f.links, f.own, f.leftOut
	for _, ext := range f.entries {
		if filepath.Base(ext) == a.ExtensionRules {
			if rules, ok := agent.EnablementCopy(readSmall(ext), project); ok {
				out.own = append(out.own, mount.Mount{Kind: mount.RoBindData, Dest: ext, Content: string(rules), Role: mount.AgentFiles, Why: "where your extensions are enabled, a private copy of the rules for this project's folders"})
			}
			continue
		}
		if !isDir(ext) {
			out.entries = append(out.entries, ext)
			continue
		}
		// Its git directories are hidden already (f.own).
		e := frozenView{frozen: []string{ext}}
		// What is named as credentials are kept is hidden and named by
		// showFrozen's look through the extension already.
		e.entries, e.links, _ = frozenEntries(ext)
		for _, path := range e.entries {
			switch name := filepath.Base(path); {
			case slices.Contains(a.ExtensionSecrets, name):
				out.leftOut = append(out.leftOut, "all of "+tilde(path))
			case slices.Contains(a.ExtensionRecords, name):
				m, note, shown := launchCopy(path, mount.AgentFiles, tilde)
				if shown {
					out.own = append(out.own, m)
				}
				if note != "" {
					out.leftOut = append(out.leftOut, note)
				}
			default:
				out.entries = append(out.entries, path)
			}
		}
		out.frozen = append(out.frozen, ext)
		out.links = append(out.links, slices.DeleteFunc(e.links, func(l mount.HostPath) bool {
			return slices.Contains(a.ExtensionSecrets, filepath.Base(l.Path)) || slices.Contains(a.ExtensionRecords, filepath.Base(l.Path))
		})...)
	}
	return out
}

// readSmall is a regular file of at most 1 MiB, nil for anything else;
// no link made after its links were resolved is followed.
func readSmall(path string) []byte {
	b, _, _ := untrusted.ReadResolved(path, 1<<20)
	return b
}
