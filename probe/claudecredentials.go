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
// URL, token and all, in the files of plugins/ (known_marketplaces.json)
// and in the git clones below it (a marketplace's, a plugin's: their
// .git/config's remote). Each such file is shown as a private read-only
// copy without the credential instead (own), and leaves the entries; a
// file of plugins/ that cannot be read whole is not shown. What was
// left out is named (leftOut).
func pluginCredentials(home string, entries []string) (kept []string, own []mount.Mount, leftOut []string) {
	plugins := filepath.Join(home, ".claude", "plugins")
	tilde := func(p string) string { return "~/" + strings.TrimPrefix(p, home+"/") }
	for _, e := range entries {
		if filepath.Dir(e) != plugins {
			kept = append(kept, e)
			continue
		}
		if fi, err := os.Stat(e); err == nil && fi.IsDir() {
			kept = append(kept, e)
			for _, config := range cloneConfigs(e) {
				if m, dropped, ok := cloneConfigCopy(config); ok {
					own = append(own, m)
					for _, d := range dropped {
						leftOut = append(leftOut, d+" in "+tilde(config))
					}
				}
			}
			continue
		}
		b, _, err := untrusted.ReadResolved(e, 1<<20)
		if err != nil {
			leftOut = append(leftOut, "all of "+tilde(e)+" (claudebox cannot read it whole to leave out a credential)")
			continue
		}
		redacted, had := claudesettings.WithoutURLCredentials(b)
		if !had {
			kept = append(kept, e)
			continue
		}
		own = append(own, mount.Mount{Kind: mount.RoBindData, Dest: e, Content: string(redacted), Why: "a private copy without the credentials in its URLs", Role: mount.ClaudeConfig})
		leftOut = append(leftOut, "the credentials in URLs in "+tilde(e))
	}
	return kept, own, leftOut
}

// cloneConfigs are the .git/config files of the git clones in dir, four
// levels down at most (plugins/cache/<marketplace>/<plugin>/<version>),
// without following a link, and at most 2,000 directories looked into.
func cloneConfigs(dir string) []string {
	var configs []string
	level, looked := []string{dir}, 0
	for depth := 0; depth <= 4 && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			if looked++; looked > 2000 {
				return configs
			}
			des, _ := os.ReadDir(d)
			for _, de := range des {
				switch {
				case !de.IsDir():
				case de.Name() == ".git":
					configs = append(configs, filepath.Join(d, ".git", "config"))
				default:
					next = append(next, filepath.Join(d, de.Name()))
				}
			}
		}
		level = next
	}
	return configs
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
