package session

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/undo"
)

// direnv runs an .envrc it was allowed to run, by a file in its data
// directory (allow/, named by the sha256 of the .envrc's path and
// content), and asks again only when the .envrc changes, never for what
// it sources. One that sources a file by a name the exit audit cannot
// spell (source_env "$ENV_FILE", "${ENV_FILE:-config/dev.env}", eval
// "$(tool)") may source any file below it, a tracked one too, whose change
// git status shows only after direnv ran it at the next cd. Where the
// session wrote below such an .envrc, the allow files naming it are
// removed (direnv deny, without the deny that would stop it silently),
// so the next cd says it is blocked until direnv allow, which the user
// runs having read what the session wrote.

// maxAllowFiles bounds the entries of direnv's allow directory read.
const maxAllowFiles = 100_000

// envrcsWrittenBelow are the .envrc files of reports that source a file
// by a name the audit cannot spell and below which the session wrote,
// by records (each checkout's; one without a record, or whose record is
// not whole, a session that ended before its start's snapshot was
// written, or one whose exit left the tracked files git shows unread
// (undo.Changes' TrackedSince), counts as written below each).
func envrcsWrittenBelow(reports map[string]audit.Report, records map[string]undo.Changes) []string {
	var envrcs []string
	for root, r := range reports {
		c, ok := records[root]
		for _, e := range r.SourcesUnspelled {
			// mise's paths are relative to the configuration's root, a
			// level or three above it (.config/mise/config.toml).
			below := filepath.Dir(e)
			if filepath.Base(e) != ".envrc" {
				below = root
			}
			wrote := !ok || c.IgnoredPartial || len(c.Incomplete) > 0 || !c.TrackedSince.IsZero() || slices.ContainsFunc(c.Paths, func(p undo.PathChange) bool {
				return paths.Within(filepath.Join(root, p.Path), below)
			})
			if wrote {
				envrcs = append(envrcs, e)
			}
		}
	}
	slices.Sort(envrcs)
	return envrcs
}

// direnvAskAgain removes the allow files of direnv that name each of
// envrcs (absolute paths), and says so; one direnv's whitelist runs
// unasked is named so. The mise configurations among them (roots are
// the checkouts they lie in) go to miseAskAgain.
func direnvAskAgain(w io.Writer, envrcs, roots []string) {
	configs := slices.DeleteFunc(slices.Clone(envrcs), func(e string) bool { return filepath.Base(e) == ".envrc" })
	miseAskAgain(w, configs, roots)
	envrcs = slices.DeleteFunc(envrcs, func(e string) bool { return filepath.Base(e) != ".envrc" })
	if len(envrcs) == 0 {
		return
	}
	home, _ := os.UserHomeDir()
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		data = filepath.Join(home, ".local", "share")
	}
	removeAllowFiles(filepath.Join(data, "direnv", "allow"), envrcs)
	whitelist := readDirenvWhitelist(home)
	for _, e := range envrcs {
		if whitelist.runs(e) {
			printable.Say(w, "claudebox: %s sources a file by a name the exit audit cannot spell, which may be any file the session wrote below it, tracked or not, and your direnv configuration's whitelist has direnv run it unasked at the next cd there", mount.Quote(e))
			printable.Say(w, "hint: read git status and git diff before you cd there")
			continue
		}
		printable.Say(w, "claudebox: direnv will ask before it runs %s again: it sources a file by a name the exit audit cannot spell, which may be any file the session wrote below it, tracked or not", mount.Quote(e))
		printable.Say(w, "hint: read git status and git diff there, then direnv allow")
	}
}

// removeAllowFiles removes each allow file in dir that names one of
// envrcs: by its path, or by another path to the same file (a link to a
// directory above it), looked at only where it ends in the .envrc's
// directory's name, so no other path is followed.
func removeAllowFiles(dir string, envrcs []string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	entries, _ := d.ReadDir(maxAllowFiles)
	for _, entry := range entries {
		if !entry.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, entry.Name()))
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		named := strings.TrimSuffix(string(b), "\n")
		if slices.ContainsFunc(envrcs, func(e string) bool { return sameEnvrc(named, e) }) {
			os.Remove(filepath.Join(dir, entry.Name()))
		}
	}
}

// sameEnvrc says whether the path an allow file names is the .envrc at e.
func sameEnvrc(named, e string) bool {
	if named == e {
		return true
	}
	if filepath.Base(named) != ".envrc" || filepath.Base(filepath.Dir(named)) != filepath.Base(filepath.Dir(e)) {
		return false
	}
	a, err := os.Stat(named)
	if err != nil {
		return false
	}
	b, err := os.Stat(e)
	return err == nil && os.SameFile(a, b)
}

// direnvWhitelist is what direnv's configuration whitelists, whose
// .envrc files it runs unasked, as direnv (2.32) reads it: the prefixes of
// an .envrc's path, and the .envrc files named exactly (a directory's
// .envrc, or the file), ~/ the home.
type direnvWhitelist struct {
	prefix, exact []string
}

// runs says whether direnv runs the .envrc at path unasked.
func (w direnvWhitelist) runs(path string) bool {
	return slices.Contains(w.exact, path) || slices.ContainsFunc(w.prefix, func(p string) bool { return strings.HasPrefix(path, p) })
}

// direnvConfigLimit bounds the configuration read.
const direnvConfigLimit = 1 << 20

// readDirenvWhitelist reads the whitelist from direnv.toml in direnv's
// configuration directory, or config.toml where there is no direnv.toml
// (direnv reads only the first). A file direnv cannot parse whitelists
// nothing: direnv then runs no .envrc at all.
func readDirenvWhitelist(home string) direnvWhitelist {
	dir := os.Getenv("DIRENV_CONFIG")
	if dir == "" {
		config := os.Getenv("XDG_CONFIG_HOME")
		if config == "" {
			config = filepath.Join(home, ".config")
		}
		dir = filepath.Join(config, "direnv")
	}
	var conf struct {
		Whitelist struct {
			Prefix []string `toml:"prefix"`
			Exact  []string `toml:"exact"`
		} `toml:"whitelist"`
	}
	for _, name := range []string{"direnv.toml", "config.toml"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, direnvConfigLimit))
		f.Close()
		if err != nil || toml.Unmarshal(b, &conf) != nil {
			return direnvWhitelist{}
		}
		break
	}
	expand := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			return filepath.Join(home, rest)
		}
		return p
	}
	var w direnvWhitelist
	for _, p := range conf.Whitelist.Prefix {
		w.prefix = append(w.prefix, expand(p))
	}
	for _, p := range conf.Whitelist.Exact {
		if p = expand(p); !strings.HasSuffix(p, "/.envrc") && !strings.HasSuffix(p, "/.env") {
			p = filepath.Join(p, ".envrc")
		}
		w.exact = append(w.exact, p)
	}
	return w
}

// mise loads a configuration it was asked to trust (mise trust: a link in
// its state directory's trusted-configs to the configuration, or to its
// root, the directory its paths are relative to) whatever it sources, as
// direnv runs an allowed .envrc; in paranoid mode only while the
// configuration's content is what was trusted, but not what it sources.
// One that sources a file by a name the exit audit cannot spell
// (_.source = "{{env.ENV_FILE}}") may source any file the session wrote.
// miseAskAgain removes the links naming each of configs, or a directory
// above one in a root, so that mise (in paranoid mode: mise 2026.9 trusts
// such a configuration unasked otherwise) refuses it until trusted again,
// and says so; a configuration MISE_TRUSTED_CONFIG_PATHS trusts unasked is
// named so.
func miseAskAgain(w io.Writer, configs, roots []string) {
	if len(configs) == 0 {
		return
	}
	state := os.Getenv("MISE_STATE_DIR")
	if state == "" {
		home, _ := os.UserHomeDir()
		state = os.Getenv("XDG_STATE_HOME")
		if state == "" {
			state = filepath.Join(home, ".local", "state")
		}
		state = filepath.Join(state, "mise")
	}
	removeMiseTrust(filepath.Join(state, "trusted-configs"), configs, roots)
	trusted := filepath.SplitList(os.Getenv("MISE_TRUSTED_CONFIG_PATHS"))
	for _, c := range configs {
		if slices.ContainsFunc(trusted, func(p string) bool { return p != "" && paths.Within(c, p) }) {
			printable.Say(w, "claudebox: %s sources a file by a name the exit audit cannot spell, which may be any file the session wrote, tracked or not, and MISE_TRUSTED_CONFIG_PATHS has mise load it unasked at the next cd there", mount.Quote(c))
			printable.Say(w, "hint: read git status and git diff before you cd there")
			continue
		}
		printable.Say(w, "claudebox: mise's trust of %s is taken back: it sources a file by a name the exit audit cannot spell, which may be any file the session wrote, tracked or not", mount.Quote(c))
		printable.Say(w, "hint: read git status and git diff there before you cd there, then mise trust")
	}
}

// removeMiseTrust removes each link in dir that leads to one of configs,
// or to a directory above one within the root holding it (its root).
func removeMiseTrust(dir string, configs, roots []string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	entries, _ := d.ReadDir(maxAllowFiles)
	for _, entry := range entries {
		if entry.Type()&os.ModeSymlink == 0 {
			continue
		}
		link := filepath.Join(dir, entry.Name())
		target, err := os.Stat(link)
		if err != nil {
			continue
		}
		trusts := func(c string) bool {
			for p := c; ; p = filepath.Dir(p) {
				if fi, err := os.Stat(p); err == nil && os.SameFile(fi, target) {
					return true
				}
				if slices.Contains(roots, p) || p == filepath.Dir(p) || !slices.ContainsFunc(roots, func(r string) bool { return paths.Within(p, r) }) {
					return false
				}
			}
		}
		if slices.ContainsFunc(configs, trusts) {
			os.Remove(link)
			// Paranoid mode's record of the content trusted.
			os.Remove(link + ".hash")
		}
	}
}
