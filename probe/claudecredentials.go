package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// pluginCredentials finds, among the entries of ~/.claude shown
// read-only, where a private plugin marketplace's credential lies: its
// URL, token and all, in plugins/ (known_marketplaces.json) and in the
// marketplace's clone (.git/config's remote). Each such file is shown as
// a private read-only copy without the credential instead (own), and
// leaves the entries; what was taken out is named (leftOut: "NAME in
// FILE" for git's entries, the file for a URL's credential).
func pluginCredentials(home string, entries []string) (kept []string, own []mount.Mount, leftOut []string) {
	plugins := filepath.Join(home, ".claude", "plugins")
	tilde := func(p string) string { return "~/" + strings.TrimPrefix(p, home+"/") }
	for _, e := range entries {
		if filepath.Dir(e) != plugins {
			kept = append(kept, e)
			continue
		}
		if filepath.Base(e) == "marketplaces" {
			kept = append(kept, e)
			names, _ := os.ReadDir(e)
			for _, n := range names {
				config := filepath.Join(e, n.Name(), ".git", "config")
				if m, dropped, ok := cloneConfigCopy(config); ok {
					own = append(own, m)
					for _, d := range dropped {
						leftOut = append(leftOut, d+" in "+tilde(config))
					}
				}
			}
			continue
		}
		b, err := untrusted.ReadFile(filepath.Dir(e), filepath.Base(e), 1<<20)
		redacted, had := claudesettings.WithoutURLCredentials(b)
		if err != nil || !had {
			kept = append(kept, e)
			continue
		}
		own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: e, Content: string(redacted), Why: "a private copy without the credentials in its URLs", Role: mount.ClaudeConfig})
		leftOut = append(leftOut, "the credentials in URLs in "+tilde(e))
	}
	return kept, own, leftOut
}

// cloneConfigCopy is the private copy of a marketplace clone's git
// configuration without the entries that may hold a credential, and
// their names; ok is false when the file holds none (or is not a plain
// file: the clone is shown as it is).
func cloneConfigCopy(config string) (m mount.Mount, dropped []string, ok bool) {
	if fi, err := os.Lstat(config); err != nil || !fi.Mode().IsRegular() {
		return mount.Mount{}, nil, false
	}
	b, err := untrusted.ReadFile(filepath.Dir(config), filepath.Base(config), 1<<20)
	entries, perr := gitconfig.Parse(b)
	if err != nil || perr != nil {
		return mount.Mount{Kind: mount.RoBindData, Dest: config, Why: "empty: claudebox cannot read it to leave out what may hold a credential", Role: mount.ClaudeConfig}, []string{"all"}, true
	}
	kept := slices.DeleteFunc(slices.Clone(entries), func(e gitconfig.Entry) bool {
		if gitSecretEntry(e) {
			dropped = append(dropped, gitEntryName(e))
			return true
		}
		return false
	})
	if len(dropped) == 0 && !gitSecretText.Match(b) {
		return mount.Mount{}, nil, false
	}
	return mount.Mount{Kind: mount.RoBindData, Dest: config, Content: string(gitconfig.Format(kept)), Why: "the marketplace's git configuration, a private copy without what may hold a credential", Role: mount.ClaudeConfig}, dropped, true
}
