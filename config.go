package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// settings are what a launch can be told beyond its defaults, by flags or
// by a config file; the keys are the flags' names.
type settings struct {
	Bind      []string `toml:"bind"`
	RoBind    []string `toml:"ro-bind"`
	Env       []string `toml:"env"`
	WithSSH   *bool    `toml:"with-ssh"`
	NoNetwork *bool    `toml:"no-network"`
	MoveAside *bool    `toml:"move-aside"`
	// The two opt-ins the sandbox's own terminal and Landlock domain close.
	WithClipboard      *bool `toml:"with-clipboard"`
	WithDesktopSockets *bool `toml:"with-desktop-sockets"`
}

// userConfig is the user's config.toml: settings for every project, and
// tables of settings for one project each, keyed by its root.
type userConfig struct {
	settings
	Project map[string]settings `toml:"project"`
}

// userConfigPath is $XDG_CONFIG_HOME/claudebox/config.toml, by default
// under ~/.config.
func userConfigPath(home string) string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "claudebox", "config.toml")
}

// keyTypes says what each key holds, for an error.
var keyTypes = map[string]string{
	"bind": "a list of strings", "ro-bind": "a list of strings", "env": "a list of strings",
	"with-ssh": "true or false", "no-network": "true or false", "move-aside": "true or false",
	"with-clipboard": "true or false", "with-desktop-sockets": "true or false", "project": "a table of tables",
}

const configKeys = "bind, ro-bind, env, with-ssh, no-network, move-aside, with-clipboard, with-desktop-sockets, and [project.\"PATH\"] tables of them"

// decodeConfig reads a config file into v; a missing file leaves v as it
// is. A repository's file is read without following a symlink: it could
// point at a secret, which an error message would then quote. The user's
// own may be a link (home-manager, stow).
// configLimit is the most of a repository's config file claudebox reads.
const configLimit = 1 << 20

func decodeConfig(path string, v any, follow bool) (bool, error) {
	if instance.IsPlaceholder(path) {
		return false, nil
	}
	read := func(path string) ([]byte, error) {
		return untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), configLimit)
	}
	if follow {
		read = os.ReadFile
	}
	data, err := read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil
	case errors.Is(err, syscall.ELOOP):
		return false, hint.Errorf("replace the link with the file itself", "%s is a symlink", path)
	case err != nil:
		return false, err
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	var missing *toml.StrictMissingError
	var bad *toml.DecodeError
	switch {
	case errors.As(err, &missing):
		e := missing.Errors[0]
		row, _ := e.Position()
		return false, hint.Errorf("the keys are "+configKeys, "%s:%d: unknown key %s", path, row, printable.Excerpt(strings.Join(e.Key(), ".")))
	case errors.As(err, &bad):
		row, _ := bad.Position()
		msg := strings.TrimPrefix(bad.Error(), "toml: ")
		if key := bad.Key(); len(key) > 0 && keyTypes[key[len(key)-1]] != "" && strings.HasPrefix(msg, "cannot decode") {
			msg = strings.Join(key, ".") + " must be " + keyTypes[key[len(key)-1]]
		}
		return false, hint.Errorf("see the Configuration section of the README", "%s:%d: %s", path, row, msg)
	case err != nil:
		return false, fmt.Errorf("%s: %v", path, err)
	}
	return true, nil
}

// layer is one source of settings.
type layer struct {
	settings
	// from names the source for --dry-run and the approval question: a
	// file's path, or "" for the command line.
	from string
	// own: the user's own configuration or command line, which needs no
	// approval.
	own bool
	// base is what relative paths are relative to.
	base string
	// legacy is a bash-era env file, read as it was then (its variables
	// audited like a repository's).
	legacy *environment.File
}

// configLayers reads the settings files, lowest precedence first: the
// user's config for every project, the repository's .claudebox.toml, then
// the user's table for this project (the user has the last word on the
// project, and the command line on everything).
//
// The bash claudebox's env files are read too, each before its successor:
// ~/.claudebox/env before config.toml, .claudebox.env before .claudebox.toml.
func configLayers(home string, project instance.Project) ([]layer, error) {
	var layers []layer
	legacy := func(path string, follow bool) error {
		f, err := environment.ReadFile(path, follow)
		switch {
		case errors.Is(err, syscall.ELOOP):
			return hint.Errorf("replace the link with the file itself", "%s is a symlink", path)
		case err != nil:
			return hint.Errorf("fix the line: NAME, or NAME=VALUE", "%v", err)
		}
		if len(f.Entries) > 0 {
			layers = append(layers, layer{from: path, legacy: &f})
		}
		return nil
	}
	if err := legacy(filepath.Join(home, ".claudebox", "env"), true); err != nil {
		return nil, err
	}
	var user userConfig
	path := userConfigPath(home)
	if _, err := decodeConfig(path, &user, true); err != nil {
		return nil, err
	}
	layers = append(layers, layer{settings: user.settings, from: path, own: true, base: project.Checkout})
	if err := legacy(filepath.Join(project.Checkout, environment.ProjectFile), false); err != nil {
		return nil, err
	}
	var repo settings
	repoPath := filepath.Join(project.Checkout, mount.ProjectConfigFile)
	if ok, err := decodeConfig(repoPath, &repo, false); err != nil {
		return nil, err
	} else if ok {
		layers = append(layers, layer{settings: repo, from: repoPath, base: project.Checkout})
	}
	for _, key := range slices.Sorted(maps.Keys(user.Project)) {
		root := instance.ExpandHome(key, home)
		if !filepath.IsAbs(root) {
			return nil, hint.Errorf(`name the project by its root: [project."~/code/app"]`, "%s: [project.%q]: not an absolute path", path, key)
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		if root == project.Root || root == project.Checkout {
			layers = append(layers, layer{settings: user.Project[key], from: fmt.Sprintf("%s [project.%q]", path, key), own: true, base: project.Checkout})
		}
	}
	return layers, nil
}

// launchSettings are the layers merged: lists accumulate, a later layer
// replaces an earlier one's bind at the same destination and its value of
// a variable, and the last layer that says with-ssh or no-network decides.
type launchSettings struct {
	binds     []mount.BindSpec
	envFiles  []environment.File
	envFlags  []string
	withSSH   bool
	noNetwork bool
	// reportOnly: at the end of the project's last session, what the exit
	// audit finds is named but left in place.
	reportOnly bool
	// clipboard lets the sandbox's clipboard writes reach the terminal;
	// desktopSockets leaves the host's abstract Unix sockets reachable.
	clipboard      bool
	desktopSockets bool
	// approval lists what a repository's file adds, for the audit; the
	// env files' variables are audited through their Env.
	approval []auditItem
}

// auditItem is one thing the user approves: line is how the approval
// record holds it, show how the question names it.
type auditItem struct {
	line, show string
}

func mergeSettings(layers []layer, home, cwd string) (launchSettings, error) {
	var out launchSettings
	var sshFrom string
	// What the user's own settings (or the command line) ask for needs no
	// approval, whichever source has the last word on it.
	ownBinds := map[string]bool{}
	ownSSH := false
	for _, l := range layers {
		for _, group := range []struct {
			specs    []string
			writable bool
		}{{l.RoBind, false}, {l.Bind, true}} {
			for _, spec := range group.specs {
				base := l.base
				if l.from == "" {
					base = cwd
				}
				b, err := mount.ParseBind(spec, home, base, group.writable, l.from)
				if err != nil {
					return out, bindHint(err, l.from)
				}
				out.binds = slices.DeleteFunc(out.binds, func(o mount.BindSpec) bool { return o.Dest == b.Dest })
				out.binds = append(out.binds, b)
				if l.own {
					ownBinds[bindLine(b)] = true
				}
			}
		}
		switch {
		case l.legacy != nil:
			out.envFiles = append(out.envFiles, *l.legacy)
		case l.from == "":
			out.envFlags = l.Env
		case len(l.Env) > 0:
			f := environment.File{Path: l.from, Own: l.own}
			for _, s := range l.Env {
				e, ok := environment.ParseEntry(s)
				if !ok {
					return out, hint.Errorf("write NAME, or NAME=VALUE", "%s: env: \"%s\" is not NAME or NAME=VALUE", l.from, printable.Excerpt(s))
				}
				f.Entries = append(f.Entries, e)
			}
			out.envFiles = append(out.envFiles, f)
		}
		if l.WithSSH != nil {
			out.withSSH, sshFrom = *l.WithSSH, l.from
			ownSSH = ownSSH || *l.WithSSH && l.own
		}
		if l.NoNetwork != nil {
			out.noNetwork = *l.NoNetwork
		}
		if l.MoveAside != nil {
			if !l.own {
				return out, hint.Errorf("set it in "+userConfigPath(home)+" or on the command line", "%s: move-aside is yours to set, not the repository's", l.from)
			}
			out.reportOnly = !*l.MoveAside
		}
		for _, o := range []struct {
			key string
			set *bool
			to  *bool
		}{{"with-clipboard", l.WithClipboard, &out.clipboard}, {"with-desktop-sockets", l.WithDesktopSockets, &out.desktopSockets}} {
			if o.set == nil {
				continue
			}
			if !l.own {
				return out, hint.Errorf("set it in "+userConfigPath(home)+" or on the command line", "%s: %s is yours to set, not the repository's", l.from, o.key)
			}
			*o.to = *o.set
		}
	}
	for _, b := range out.binds {
		if !ownBinds[bindLine(b)] {
			out.approval = append(out.approval, auditItem{line: bindLine(b), show: b.Flag() + " (from " + b.From + ")"})
		}
	}
	if out.withSSH && !ownSSH {
		out.approval = append(out.approval, auditItem{line: "with-ssh", show: "--with-ssh (from " + sshFrom + ")"})
	}
	return out, nil
}

// bindLine is how the approval record holds a bind: a digest, since a path
// may hold spaces.
func bindLine(b mount.BindSpec) string {
	sum := sha256.Sum256([]byte(b.Flag() + "\x00" + b.Src + "\x00" + b.Dest))
	return "mount:" + hex.EncodeToString(sum[:8])
}

// bindHint gives a bind error its hint; one from a file names the file.
func bindHint(err error, from string) error {
	var be *mount.BindError
	if !errors.As(err, &be) {
		return err
	}
	msg := be.Error()
	if from != "" {
		msg = from + ": " + msg
	}
	return hint.Errorf(be.Hint, "%s", msg)
}

// noticesFile records, in the state directory, the bash-era files whose
// notice the user has seen.
const noticesFile = "notices"

// noticeLegacy says, once per file, what a bash-era env file read at this
// launch is in the new configuration. It names variables, never values.
func (s session) noticeLegacy() error {
	if len(s.legacy) == 0 {
		return nil
	}
	path := filepath.Join(s.stateDir, noticesFile)
	seen, _ := os.ReadFile(path)
	lines := strings.Split(string(seen), "\n")
	var fresh []string
	for _, f := range s.legacy {
		if slices.Contains(lines, f.Path) {
			continue
		}
		var names []string
		for _, e := range f.Entries {
			if e.Set {
				names = append(names, fmt.Sprintf("%q", e.Name+"=…"))
			} else {
				names = append(names, fmt.Sprintf("%q", e.Name))
			}
		}
		env := "env = [" + strings.Join(names, ", ") + "]"
		if filepath.Base(f.Path) == environment.ProjectFile {
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, mount.ProjectConfigFile)
			printable.Say(os.Stderr, "hint: kept outside the repository, a [project.%q] table in %s needs no approval", s.plan.Project.Root, userConfigPath(s.home))
		} else {
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, userConfigPath(s.home))
			printable.Say(os.Stderr, "hint: there it needs no approval, and %s can then go", f.Path)
		}
		fresh = append(fresh, f.Path)
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := os.MkdirAll(s.stateDir, 0o700); err != nil {
		return err
	}
	record := strings.TrimSuffix(string(seen), "\n")
	if record != "" {
		record += "\n"
	}
	return untrusted.WriteFile(s.stateDir, noticesFile, []byte(record+strings.Join(fresh, "\n")+"\n"), 0o600)
}
