package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// pluginCredentials finds, among the entries of ~/.claude shown
// read-only, where a credential of the user's git remotes lies: in the
// git repositories below any of them (a marketplace's clone, a plugin's,
// their submodules, a skill cloned from a private repository, ~/.claude
// itself kept in git: each one's config), and for a private plugin
// marketplace, its URL, token and all, in the files of plugins/
// (known_marketplaces.json). Each such file is shown
// as a private read-only copy without the credential instead (own), and
// leaves the entries; a file of plugins/ that cannot be read whole, or a
// directory that cannot be looked through whole, is not shown. What was
// left out is named (leftOut).
func pluginCredentials(home string, entries []string) (kept []string, own []mount.Mount, leftOut []string) {
	plugins := filepath.Join(home, ".claude", "plugins")
	tilde := func(p string) string { return tildePath(p, home) }
	for _, e := range entries {
		if fi, err := os.Stat(e); err == nil && fi.IsDir() {
			copies, dropped, whole := cloneCredentials(e, e, mount.ClaudeConfig, tilde)
			if leftOut = append(leftOut, dropped...); whole {
				kept, own = append(kept, e), append(own, copies...)
			}
			continue
		}
		if filepath.Dir(e) != plugins {
			kept = append(kept, e)
			continue
		}
		// A copy of what the launch read, with or without a credential:
		// a marketplace the host adds during the session, token and all,
		// is written into the host's file, which is not shown.
		m, note, shown := launchCopy(e, mount.ClaudeConfig, tilde)
		if shown {
			own = append(own, m)
		}
		if note != "" {
			leftOut = append(leftOut, note)
		}
	}
	return kept, own, leftOut
}

// launchCopy is a private read-only copy, at path, of the file the
// launch read there, without the credentials in its URLs (a private
// marketplace's or extension's https://oauth2:TOKEN@…): what the host
// writes there during the session is not shown. note names what was left
// out, "" when nothing was; a file that cannot be read whole (over 1 MiB,
// not a regular file) is not shown (ok false).
func launchCopy(path string, role mount.Role, tilde func(string) string) (m mount.Mount, note string, ok bool) {
	b, _, err := untrusted.ReadResolved(path, 1<<20)
	if err != nil {
		return mount.Mount{}, "all of " + tilde(path) + " (claudebox cannot read it whole to leave out a credential)", false
	}
	redacted, had := claudesettings.WithoutURLCredentials(b)
	why := "a private copy of what the launch read"
	if had {
		why, note = "a private copy without the credentials in its URLs", "the credentials in URLs in "+tilde(path)
	}
	return mount.Mount{Kind: mount.RoBindData, Dest: path, Content: string(redacted), Why: why, Role: role}, note, true
}

// cloneCredentials hides, in dir (shown inside at dest), every git
// directory (an empty directory stands over it, own) and names the
// entries of their configurations that may hold a credential (leftOut): a
// clone's configuration keeps its remote's URL, token and all, and the
// host's git writes it while the session runs (git config renames a new
// file over the old, which would take a private copy's mount with it);
// what Claude Code reads of a clone is its files, not its git directory.
// whole is false when dir cannot be looked through whole, and then it is
// not to be shown (leftOut says so).
func cloneCredentials(dir, dest string, role mount.Role, tilde func(string) string) (own []mount.Mount, leftOut []string, whole bool) {
	gitDirs, configs, whole := gitDirs(dir)
	if !whole {
		return nil, []string{"all of " + tilde(dest) + " (" + notLookedThrough + ")"}, false
	}
	inside := func(p string) string {
		rel, _ := filepath.Rel(dir, p)
		return filepath.Join(dest, rel)
	}
	for _, g := range gitDirs {
		own = append(own, mount.Mount{Kind: mount.Tmpfs, Dest: inside(g), Why: "a clone's git directory, hidden: its configuration may hold a credential, and the host's git rewrites it", Role: role})
	}
	for _, config := range configs {
		for _, d := range configCredentials(config) {
			leftOut = append(leftOut, d+" in "+tilde(inside(config)))
		}
	}
	return own, leftOut, true
}

// The bounds of gitDirs' walk: deep enough for
// plugins/cache/<marketplace>/<plugin>/<version>/.git/modules/<name>, and
// for a hook's virtualenv or a skill's node_modules in ~/.claude, which a
// walk that gave up would hide whole; the count bounds its cost.
const (
	gitDirsDepth = 32
	gitDirsCount = 4000
)

// notLookedThrough says why a directory gitDirs could not look through
// whole is not shown.
const notLookedThrough = "claudebox cannot look through it whole for git directories, which may hold a credential: over 32 levels or 4,000 directories"

// gitDirs are the git directories in dir that lie in no other (one named
// .git, a bare repository: HEAD and objects in it, a worktree's: HEAD and
// commondir), and the configuration files (config, config.worktree) of
// each and of their submodules' and worktrees' below them. No link is
// followed. whole is false when the walk went past its bounds or could
// not read a directory: what it did not see may hold one.
func gitDirs(dir string) (dirs, configs []string, whole bool) {
	level, looked := []string{dir}, 0
	for depth := 0; len(level) > 0; depth++ {
		if depth > gitDirsDepth {
			return nil, nil, false
		}
		var next []string
		for _, d := range level {
			if looked++; looked > gitDirsCount {
				return nil, nil, false
			}
			des, err := os.ReadDir(d)
			if err != nil {
				return nil, nil, false
			}
			names := map[string]bool{}
			for _, de := range des {
				names[de.Name()] = true
			}
			isGitDir := filepath.Base(d) == ".git" || names["HEAD"] && (names["objects"] || names["commondir"])
			if isGitDir && !slices.ContainsFunc(dirs, func(g string) bool { return paths.Within(d, g) }) {
				dirs = append(dirs, d)
			}
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
	return dirs, configs, true
}

// configCredentials names the entries of a clone's git configuration that
// may hold a credential; "all" when it cannot be read as git's (a link, a
// FIFO, not git's grammar).
func configCredentials(config string) (names []string) {
	b, err := untrusted.ReadFile(filepath.Dir(config), filepath.Base(config), 1<<20)
	entries, perr := gitconfig.Parse(b)
	if err != nil || perr != nil {
		return []string{"all"}
	}
	for _, e := range entries {
		if gitSecretEntry(e) {
			names = append(names, gitEntryName(e))
		}
	}
	return names
}

// setupCredentials does for the directories the user's Claude Code setup
// names outside ~/.claude (a local marketplace, a plugin's directory:
// often a clone of a private repository) what pluginCredentials does for
// ~/.claude's: the git configurations in them that may hold a credential
// are shown as private copies without it (own), and a directory that
// cannot be looked through whole is not shown (unshown).
func setupCredentials(home string, setup []bind.Own) (kept []bind.Own, own []mount.Mount, leftOut []string, unshown []mount.Unshown) {
	tilde := func(p string) string { return tildePath(p, home) }
	for _, o := range setup {
		if fi, err := os.Stat(o.Src); err != nil || !fi.IsDir() {
			kept = append(kept, o)
			continue
		}
		copies, dropped, whole := cloneCredentials(o.Src, o.Dest, mount.HostFiles, tilde)
		if !whole {
			unshown = append(unshown, mount.Unshown{Path: o.Dest, What: strings.TrimSuffix(o.Why, ", read-only"), Reason: notLookedThrough})
			continue
		}
		kept, own, leftOut = append(kept, o), append(own, copies...), append(leftOut, dropped...)
	}
	return kept, own, leftOut, unshown
}
