package probe

import (
	"io/fs"
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
// and in the git repositories below it (a marketplace's clone, a
// plugin's, their submodules: each one's config). Each such file is
// shown as a private read-only copy without the credential instead
// (own), and leaves the entries; a file of plugins/ that cannot be read
// whole, or a directory that cannot be looked through whole, is not
// shown. What was left out is named (leftOut).
func pluginCredentials(home string, entries []string) (kept []string, own []mount.Mount, leftOut []string) {
	plugins := filepath.Join(home, ".claude", "plugins")
	tilde := func(p string) string { return "~/" + strings.TrimPrefix(p, home+"/") }
	for _, e := range entries {
		if filepath.Dir(e) != plugins {
			kept = append(kept, e)
			continue
		}
		if fi, err := os.Stat(e); err == nil && fi.IsDir() {
			configs, whole := gitConfigs(e)
			if !whole {
				leftOut = append(leftOut, "all of "+tilde(e)+" (claudebox cannot look through it whole for git configurations that may hold a credential: over 8 levels or 4,000 directories)")
				continue
			}
			kept = append(kept, e)
			for _, config := range configs {
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

// The bounds of gitConfigs' walk: deep enough for
// plugins/cache/<marketplace>/<plugin>/<version>/.git/modules/<name>.
const (
	gitConfigsDepth = 8
	gitConfigsDirs  = 4000
)

// gitConfigs are the configuration files (config, config.worktree) of
// every git directory in dir: one named .git, a bare repository (HEAD
// and objects in it), a worktree's (HEAD and commondir), their
// submodules' and worktrees' below them. No
// link is followed. whole is false when the walk went past its bounds
// or could not read a directory: what it did not see may hold one.
func gitConfigs(dir string) (configs []string, whole bool) {
	level, looked := []string{dir}, 0
	for depth := 0; len(level) > 0; depth++ {
		if depth > gitConfigsDepth {
			return nil, false
		}
		var next []string
		for _, d := range level {
			if looked++; looked > gitConfigsDirs {
				return nil, false
			}
			des, err := os.ReadDir(d)
			if err != nil {
				return nil, false
			}
			types := map[string]fs.FileMode{}
			for _, de := range des {
				types[de.Name()] = de.Type()
			}
			file := func(name string) bool { t, ok := types[name]; return ok && t.IsRegular() }
			isGitDir := filepath.Base(d) == ".git" || file("HEAD") && (types["objects"].IsDir() || file("commondir"))
			for _, de := range des {
				name := de.Name()
				switch {
				case isGitDir && !de.IsDir() && (name == "config" || name == "config.worktree"):
					configs = append(configs, filepath.Join(d, name))
				case !de.IsDir():
				case isGitDir && name != "modules" && name != "worktrees":
					// The rest of a git directory (objects, refs, logs, hooks)
					// holds no configuration git reads.
				default:
					next = append(next, filepath.Join(d, name))
				}
			}
		}
		level = next
	}
	return configs, true
}

// cloneConfigCopy is the private copy of a marketplace clone's git
// configuration without the entries that may hold a credential, and
// their names; ok is false when the file holds none. One that is not a
// plain file (a link to another file, a FIFO) is shown empty.
func cloneConfigCopy(config string) (m mount.Mount, dropped []string, ok bool) {
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
