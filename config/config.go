// Package config reads what a launch is told beyond its defaults: the
// command line's flags, the user's config.toml, a repository's
// .claudebox.toml and the bash claudebox's env files. It merges them into
// one Launch, lists what the project's files add for the user to approve,
// and keeps the record of what was approved.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/pelletier/go-toml/v2"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/limits"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/untrusted"
)

// Settings are what a launch can be told beyond its defaults, by flags or
// by a config file; the keys are the flags' names.
type Settings struct {
	Bind    []string `toml:"bind"`
	RoBind  []string `toml:"ro-bind"`
	Env     []string `toml:"env"`
	WithSSH *bool    `toml:"with-ssh"`
	WithGPG *bool    `toml:"with-gpg"`
	// GPU shows the host's GPU devices inside (--with-gpu).
	GPU       *bool `toml:"gpu"`
	NoNetwork *bool `toml:"no-network"`
	// Network is the sandbox's network: filtered (the default), host or
	// none; the hosts lists are the filtered network's.
	Network    *string  `toml:"network"`
	AllowHosts []string `toml:"allow-hosts"`
	DenyHosts  []string `toml:"deny-hosts"`
	// Publish ([HOSTPORT:]PORT) and Forward (PORT) are the filtered
	// network's ports: servers inside reached from the host, and the
	// host's reached inside.
	Publish   []string `toml:"publish"`
	Forward   []string `toml:"forward"`
	MoveAside *bool    `toml:"move-aside"`
	// Caches = false turns the project's own tool caches off.
	Caches *bool `toml:"caches"`
	// The opt-ins the sandbox's own terminal and Landlock domains close.
	WithClipboard      *bool `toml:"with-clipboard"`
	WithDesktopSockets *bool `toml:"with-desktop-sockets"`
	WithProjectSockets *bool `toml:"with-project-sockets"`
	// ExportDir is the inbox every session is exported to, as Markdown.
	ExportDir *string `toml:"export-dir"`
	// MCP names the MCP servers of the host's ~/.claude.json to carry in.
	MCP []string `toml:"mcp"`
	// WorktreeDir is where -w makes a task's worktree: the user's alone.
	WorktreeDir *string `toml:"worktree-dir"`
	// RefuseEnv are name patterns of variables that never pass (tokens
	// the user's employer scopes): the user's own settings only.
	RefuseEnv []string `toml:"refuse-env"`
	// Memory, CPUs and Pids bound what the sandbox may take of the host
	// (package limits): the user's own settings only.
	Memory *string `toml:"memory"`
	CPUs   *int    `toml:"cpus"`
	Pids   *int    `toml:"pids"`
	// SSHKeys are the fingerprints of the agent's keys the sandbox may
	// use with --with-ssh; none named: all of them. The user's own
	// settings only.
	SSHKeys []string `toml:"ssh-keys"`
	// SSHUsers are the users the sandbox may log in as with the agent's
	// keys; none named: git, the git hosts'. The user's own settings only.
	SSHUsers []string `toml:"ssh-users"`
}

// WorktreeDir is where -w makes a task's worktree, from the user's
// config.toml: "" for beside the project.
func WorktreeDir(home string) (string, error) {
	var user userConfig
	path := UserConfigPath(home)
	if _, err := decodeConfig(path, &user, true); err != nil || user.WorktreeDir == nil {
		return "", err
	}
	dir := expandHome(*user.WorktreeDir, home)
	if !filepath.IsAbs(dir) {
		return "", hint.Errorf("write an absolute path, or one that starts with ~/", "%s: worktree-dir is not absolute: %s", path, printable.Escape(dir))
	}
	return dir, nil
}

// userConfig is the user's config.toml: settings for every project, and
// tables of settings for one project each, keyed by its root.
type userConfig struct {
	Settings
	Project map[string]Settings `toml:"project"`
}

// UserConfigPath is $XDG_CONFIG_HOME/claudebox/config.toml, by default
// under ~/.config.
func UserConfigPath(home string) string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "claudebox", "config.toml")
}

// keyTypes says what each key holds, for an error.
var keyTypes = map[string]string{
	"bind": "a list of strings", "ro-bind": "a list of strings", "env": "a list of strings",
	"with-ssh": "true or false", "with-gpg": "true or false", "gpu": "true or false", "no-network": "true or false", "network": `"filtered", "host" or "none"`,
	"allow-hosts": "a list of strings", "deny-hosts": "a list of strings", "move-aside": "true or false", "caches": "true or false",
	"publish": `a list of strings, e.g. ["8080", "9000:3000"]`, "forward": `a list of strings, e.g. ["5432"]`,
	"with-clipboard": "true or false", "with-desktop-sockets": "true or false", "with-project-sockets": "true or false", "export-dir": "a string", "worktree-dir": "a string", "mcp": "a list of strings", "refuse-env": "a list of strings", "ssh-keys": `a list of key fingerprints, e.g. ["SHA256:…"] as ssh-add -l shows them`, "ssh-users": `a list of user names, e.g. ["git"]`,
	"memory": `a size, e.g. "8G"`, "cpus": "a number of processors", "pids": "a number of processes and threads", "project": "a table of tables",
}

const configKeys = "bind, ro-bind, env, with-ssh, with-gpg, gpu, no-network, network, allow-hosts, deny-hosts, publish, forward, move-aside, caches, with-clipboard, with-desktop-sockets, with-project-sockets, export-dir, worktree-dir, mcp, refuse-env, ssh-keys, ssh-users, memory, cpus, pids, and [project.\"PATH\"] tables of them"

// configLimit is the most of a repository's config file claudebox reads.
const configLimit = 1 << 20

// decodeConfig reads a config file into v; a missing file leaves v as it
// is. A repository's file is read without following a symlink: it could
// point at a secret, which an error message would then quote. The user's
// own may be a link (home-manager, stow).
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
	// A launch of this project beside may have made its stand-in since the
	// look above (a socket of mode 000, which refuses the open).
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || err != nil && instance.IsPlaceholder(path):
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
	Settings
	// from names the source for --dry-run and the approval question: a
	// file's path, or "" for the command line.
	from string
	// file is the file the layer was read from, where a deny entry's line
	// is looked up ("" for the command line).
	file string
	// own: the user's own configuration or command line, which needs no
	// approval.
	own bool
	// base is what relative paths are relative to.
	base string
	// legacy is a bash-era env file, read as it was then (its variables
	// audited like a repository's).
	legacy *environment.File
}

// readLayers reads the settings files, lowest precedence first: the
// user's config for every project, the repository's .claudebox.toml, then
// the user's table for this project (the user has the last word on the
// project, and the command line on everything).
//
// The bash claudebox's env files are read too, each before its successor:
// ~/.claudebox/env before config.toml, .claudebox.env before .claudebox.toml.
func readLayers(home string, project instance.Project) ([]layer, error) {
	var layers []layer
	legacy := func(path string, follow bool) error {
		f, err := environment.ReadFile(path, follow)
		switch {
		case errors.Is(err, syscall.ELOOP):
			return hint.Errorf("replace the link with the file itself", "%s is a symlink", path)
		case errors.Is(err, untrusted.ErrNotRegular) || errors.Is(err, untrusted.ErrTooLarge):
			return hint.Errorf("make it a regular file of NAME or NAME=VALUE lines, at most 1 MiB", "%v", err)
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
	path := UserConfigPath(home)
	if _, err := decodeConfig(path, &user, true); err != nil {
		return nil, err
	}
	if l, ok := claudeNetwork(home); ok {
		layers = append(layers, l)
	}
	layers = append(layers, layer{Settings: user.Settings, from: path, file: path, own: true, base: project.Checkout})
	if err := legacy(filepath.Join(project.Checkout, environment.ProjectFile), false); err != nil {
		return nil, err
	}
	var repo Settings
	repoPath := filepath.Join(project.Checkout, guard.ProjectConfigFile)
	if ok, err := decodeConfig(repoPath, &repo, false); err != nil {
		return nil, err
	} else if ok {
		layers = append(layers, layer{Settings: repo, from: repoPath, file: repoPath, base: project.Checkout})
	}
	for _, key := range slices.Sorted(maps.Keys(user.Project)) {
		root := paths.ExpandHome(key, home)
		if !filepath.IsAbs(root) {
			return nil, hint.Errorf(`name the project by its root: [project."~/code/app"]`, "%s: [project.%q]: not an absolute path", path, key)
		}
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
		if root == project.Root || root == project.Checkout {
			layers = append(layers, layer{Settings: user.Project[key], from: fmt.Sprintf("%s [project.%q]", path, key), file: path, own: true, base: project.Checkout})
		}
	}
	return layers, nil
}

// Launch is the settings merged: lists accumulate, a later layer
// replaces an earlier one's bind at the same destination and its value of
// a variable, and the last layer that says with-ssh or no-network decides.
type Launch struct {
	Binds    []mount.BindSpec
	EnvFiles []environment.File
	EnvFlags []string
	WithSSH  bool
	WithGPG  bool
	// GPU: the host's GPU devices are shown inside.
	GPU bool
	// Network is the sandbox's network (a Network* constant); Hosts, what
	// the filtered one lets through.
	Network string
	Hosts   proxy.Policy
	// Publish and Forward are the filtered network's ports.
	Publish []mount.Publish
	Forward []int
	// ownNetwork is the network the user's own settings ask for, which
	// --check's trial falls back to when a wider one is not approved.
	ownNetwork string
	// ReportOnly: at the end of the project's last session, what the exit
	// audit finds is named but left in place.
	ReportOnly bool
	// NoCaches: the project keeps no tool caches of its own.
	NoCaches bool
	// Clipboard lets the sandbox's clipboard writes reach the terminal;
	// DesktopSockets leaves the host's abstract Unix sockets reachable;
	// ProjectSockets lets the sandbox make Unix sockets in the project,
	// and reach those the host's servers listen on there.
	Clipboard      bool
	DesktopSockets bool
	ProjectSockets bool
	// ExportDir is the inbox sessions are exported to; empty: none.
	ExportDir string
	// RefuseEnv are the user's patterns of variables that never pass.
	RefuseEnv []string
	// SSHKeys are the fingerprints of the agent's keys the sandbox may
	// use; none: all.
	SSHKeys []string
	// SSHUsers are the users it may log in as with them; none: git.
	SSHUsers []string
	// MCP names the MCP servers to carry in, each with the file that named
	// it ("" for the user's own settings or the command line).
	MCP []MCPName
	// Legacy are the bash-era env files read, for their one-time notice.
	Legacy []environment.File
	// Skipped names the files' binds of paths that do not exist, each
	// with its file, for a one-line note.
	Skipped []string
	// Limits bound what the sandbox may take of the host.
	Limits limits.Limits
	// additions lists what a repository's file adds, for approval; the env
	// files' variables are added from the environment (Additions).
	additions []Item
}

// Load reads the configuration files of project and merges them under
// flags, the command line's settings; relative paths on the command line
// are relative to cwd. The binds must show nothing of state, claudebox's
// own directories.
func Load(home string, project instance.Project, flags Settings, cwd string, state []string) (Launch, error) {
	layers, err := readLayers(home, project)
	if err != nil {
		return Launch{}, err
	}
	l, err := merge(append(layers, layer{Settings: flags, own: true}), home, cwd)
	if err != nil {
		return Launch{}, err
	}
	if err := bind.Check(l.Binds, home, project, state); err != nil {
		return Launch{}, bindHint(err, "")
	}
	for _, layer := range layers {
		if layer.legacy != nil {
			l.Legacy = append(l.Legacy, *layer.legacy)
		}
	}
	return l, nil
}

func merge(layers []layer, home, cwd string) (Launch, error) {
	m := merging{home: home, cwd: cwd, ownBinds: map[Grant]bool{}, ownPorts: map[Grant]bool{}, ownNetwork: NetworkFiltered}
	m.out.Limits.Tasks = limits.DefaultTasks
	m.out.Network = NetworkFiltered
	m.out.Hosts.Allow = slices.Clone(presetRules())
	for _, l := range layers {
		if err := m.binds(l); err != nil {
			return m.out, err
		}
		if err := m.env(l); err != nil {
			return m.out, err
		}
		if err := m.mcp(l); err != nil {
			return m.out, err
		}
		m.switches(l)
		if err := m.network(l); err != nil {
			return m.out, err
		}
		if err := m.ports(l); err != nil {
			return m.out, err
		}
		if err := m.usersOnly(l); err != nil {
			return m.out, err
		}
	}
	if err := portsCross(m.out.Publish, m.out.Forward); err != nil {
		return m.out, err
	}
	m.out.ownNetwork = m.ownNetwork
	m.out.additions = m.waiting()
	return m.out, nil
}

// merging is a merge under way: the settings so far, and what the user's
// own settings (or the command line) ask for, which needs no approval
// whichever source has the last word on it.
type merging struct {
	out       Launch
	home, cwd string
	ownBinds  map[Grant]bool
	ownSSH    bool
	sshFrom   string
	ownGPG    bool
	gpgFrom   string
	ownGPU    bool
	gpuFrom   string
	// A repository's network wider than the user's own (none, filtered,
	// host) waits for approval too, as does each host it allows.
	ownNetwork, networkFrom, networkShow string
	hosts                                []Item
	// portItems are the ports repositories' files add; ownPorts, those
	// the user's own settings name.
	portItems []Item
	ownPorts  map[Grant]bool
}

// binds adds a layer's binds; each replaces one at the same destination.
func (m *merging) binds(l layer) error {
	base := l.base
	if l.from == "" {
		base = m.cwd
	}
	for _, group := range []struct {
		specs    []string
		writable bool
	}{{l.RoBind, false}, {l.Bind, true}} {
		for _, spec := range group.specs {
			b, err := bind.Parse(spec, m.home, base, group.writable, l.from)
			var be *bind.Error
			if l.from != "" && errors.As(err, &be) && be.Problem == bind.SourceMissing {
				// A file's bind of what a tool has not created yet
				// (~/.cargo/git) waits for it; the command line's is a
				// typo until shown otherwise.
				m.out.Skipped = append(m.out.Skipped, be.Spec+" (from "+l.from+"): "+be.Reason)
				continue
			}
			if err != nil {
				return bindHint(err, l.from)
			}
			m.out.Binds = slices.DeleteFunc(m.out.Binds, func(o mount.BindSpec) bool { return o.Dest == b.Dest })
			m.out.Binds = append(m.out.Binds, b)
			if l.own {
				m.ownBinds[mountGrant(b)] = true
			}
		}
	}
	return nil
}

// env adds a layer's variables: a bash-era env file as it was read, a
// config file's entries as a file of their own; the command line's --env
// stays a list of flags.
func (m *merging) env(l layer) error {
	switch {
	case l.legacy != nil:
		m.out.EnvFiles = append(m.out.EnvFiles, *l.legacy)
	case l.from == "":
		m.out.EnvFlags = l.Env
	case len(l.Env) > 0:
		f := environment.File{Path: l.from, Own: l.own}
		for _, s := range l.Env {
			e, ok := environment.ParseEntry(s)
			if !ok {
				return hint.Errorf("write NAME, or NAME=VALUE", "%s: env: \"%s\" is not NAME or NAME=VALUE", l.from, printable.Excerpt(s))
			}
			f.Entries = append(f.Entries, e)
		}
		m.out.EnvFiles = append(m.out.EnvFiles, f)
	}
	return nil
}

// mcp adds the MCP servers a layer names, once each; one the user's own
// settings name is theirs, whichever file named it first.
func (m *merging) mcp(l layer) error {
	for _, name := range l.MCP {
		if !instance.ValidServerName(name) {
			key := "--with-mcp"
			if l.from != "" {
				key = l.from + ": mcp"
			}
			return hint.Errorf("claude mcp list names the servers", "%s: \"%s\" is not an MCP server's name", key, printable.Excerpt(name))
		}
		from := l.from
		if l.own {
			from = ""
		}
		if i := slices.IndexFunc(m.out.MCP, func(s MCPName) bool { return s.Name == name }); i >= 0 {
			if from == "" {
				m.out.MCP[i].From = ""
			}
			continue
		}
		m.out.MCP = append(m.out.MCP, MCPName{Name: name, From: from})
	}
	return nil
}

// switches: the last layer that says with-ssh decides.
func (m *merging) switches(l layer) {
	if l.WithSSH != nil {
		m.out.WithSSH, m.sshFrom = *l.WithSSH, l.from
		m.ownSSH = m.ownSSH || *l.WithSSH && l.own
	}
	if l.WithGPG != nil {
		m.out.WithGPG, m.gpgFrom = *l.WithGPG, l.from
		m.ownGPG = m.ownGPG || *l.WithGPG && l.own
	}
	if l.GPU != nil {
		m.out.GPU, m.gpuFrom = *l.GPU, l.from
		m.ownGPU = m.ownGPU || *l.GPU && l.own
	}
}

// network: the last layer that says network or no-network decides the
// mode; the hosts of every layer add up.
func (m *merging) network(l layer) error {
	mode := ""
	if l.NoNetwork != nil {
		switch {
		case *l.NoNetwork:
			mode = NetworkNone
		case m.out.Network == NetworkNone:
			mode = NetworkFiltered
		default:
			mode = m.out.Network
		}
	}
	if l.Network != nil {
		if !slices.Contains(networkModes, *l.Network) {
			return hint.Errorf(`network = "filtered" (the default), "host" or "none"`, "%s: network: \"%s\" is not a network", where(l.from), printable.Excerpt(*l.Network))
		}
		mode = *l.Network
	}
	if mode != "" {
		m.out.Network, m.networkFrom = mode, l.from
		m.networkShow = fmt.Sprintf("network = %q", mode)
		if l.Network == nil {
			m.networkShow = fmt.Sprintf("no-network = %v", *l.NoNetwork)
		}
		if l.own {
			m.ownNetwork, m.networkFrom = mode, ""
		}
	}
	for _, list := range []struct {
		key     string
		entries []string
		to      *[]proxy.Rule
	}{{"allow-hosts", l.AllowHosts, &m.out.Hosts.Allow}, {"deny-hosts", l.DenyHosts, &m.out.Hosts.Deny}} {
		for _, e := range list.entries {
			r, err := proxy.ParseRule(e)
			if err != nil {
				return hint.Errorf("write host, *.domain or an IP address, each with an optional :port: github.com, *.example.com, 127.0.0.1:8080",
					"%s: %s: \"%s\": %v", where(l.from), list.key, printable.Excerpt(e), err)
			}
			r = r.From(l.entrySource(list.key, e))
			*list.to = append(*list.to, r)
			if list.key == "allow-hosts" && !l.own {
				m.hosts = append(m.hosts, Item{grant: Grant{kind: kindHost, name: r.String()}, Show: "allow-hosts " + r.String() + " (from " + l.from + ")"})
			}
		}
	}
	return nil
}

// entrySource names where the layer's allow-hosts or deny-hosts entry is
// written, for the refusal of a host it denies and for --dry-run: the key
// and the file, with the line that holds it when one does.
func (l layer) entrySource(key, entry string) string {
	if strings.HasSuffix(l.from, "(sandbox.network)") {
		key = map[string]string{"allow-hosts": "sandbox.network.allowedDomains", "deny-hosts": "sandbox.network.deniedDomains"}[key]
	}
	if l.file == "" {
		return key + " on the command line"
	}
	read := os.ReadFile
	if !l.own {
		read = func(path string) ([]byte, error) {
			return untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), configLimit)
		}
	}
	if data, err := read(l.file); err == nil {
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"`+entry+`"`) || strings.Contains(line, `'`+entry+`'`) {
				return fmt.Sprintf("%s in %s:%d", key, l.file, i+1)
			}
		}
	}
	return key + " in " + l.file
}

// usersOnly applies the settings that are the user's alone: a repository
// must not choose where the host writes, nor open what the sandbox closes.
func (m *merging) usersOnly(l layer) error {
	for _, s := range []struct {
		key string
		set bool
	}{
		{"move-aside", l.MoveAside != nil},
		{"caches", l.Caches != nil},
		{"export-dir", l.ExportDir != nil},
		{"worktree-dir", l.WorktreeDir != nil},
		{"with-clipboard", l.WithClipboard != nil},
		{"with-desktop-sockets", l.WithDesktopSockets != nil},
		{"with-project-sockets", l.WithProjectSockets != nil},
		{"refuse-env", len(l.RefuseEnv) > 0},
		{"memory", l.Memory != nil},
		{"cpus", l.CPUs != nil},
		{"pids", l.Pids != nil},
		{"ssh-keys", len(l.SSHKeys) > 0},
		{"ssh-users", len(l.SSHUsers) > 0},
	} {
		if s.set && !l.own {
			return hint.Errorf("set it in "+UserConfigPath(m.home)+" or on the command line", "%s: %s is yours to set, not the repository's", l.from, s.key)
		}
	}
	if l.MoveAside != nil {
		m.out.ReportOnly = !*l.MoveAside
	}
	if l.Caches != nil {
		m.out.NoCaches = !*l.Caches
	}
	if l.ExportDir != nil {
		m.out.ExportDir = expandHome(*l.ExportDir, m.home)
		switch {
		case m.out.ExportDir == "", filepath.IsAbs(m.out.ExportDir):
		case l.from == "":
			m.out.ExportDir = filepath.Join(m.cwd, m.out.ExportDir)
		default:
			return hint.Errorf("write an absolute path, or one that starts with ~/", "%s: export-dir is not absolute: %s", l.from, printable.Escape(m.out.ExportDir))
		}
	}
	if l.WithClipboard != nil {
		m.out.Clipboard = *l.WithClipboard
	}
	if l.WithDesktopSockets != nil {
		m.out.DesktopSockets = *l.WithDesktopSockets
	}
	if l.WithProjectSockets != nil {
		m.out.ProjectSockets = *l.WithProjectSockets
	}
	for _, p := range l.RefuseEnv {
		if !environment.ValidPattern(p) {
			return hint.Errorf(`write a variable's name, with * for any characters: "CORP_*"`, "%s: refuse-env: \"%s\" is not a name pattern", l.from, printable.Excerpt(p))
		}
		m.out.RefuseEnv = append(m.out.RefuseEnv, p)
	}
	for _, k := range l.SSHKeys {
		if !sshFingerprint().MatchString(k) {
			return hint.Errorf("ssh-add -l shows your agent's keys' fingerprints: SHA256:… (with ssh-add -E sha256 -l where it shows MD5)", "%s: ssh-keys: \"%s\" is not a key's SHA-256 fingerprint", where(l.from), printable.Excerpt(k))
		}
		m.out.SSHKeys = append(m.out.SSHKeys, k)
	}
	for _, u := range l.SSHUsers {
		if !sshUser().MatchString(u) {
			return hint.Errorf(`write the user as ssh logs in, as in git@github.com: ["git"]`, "%s: ssh-users: \"%s\" is not a user's name", where(l.from), printable.Excerpt(u))
		}
		m.out.SSHUsers = append(m.out.SSHUsers, u)
	}
	return m.limits(l)
}

// sshUser is a user's name as a server's account has it.
var sshUser = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })

// sshFingerprint is a key's SHA-256 fingerprint as OpenSSH shows it.
var sshFingerprint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^SHA256:[A-Za-z0-9+/]{43}$`) })

// waiting lists what needs the user's approval: what a repository's file
// has the last word on, and the user's own settings do not ask for.
func (m *merging) waiting() []Item {
	items := append(slices.Clone(m.hosts), m.waitingPorts()...)
	for _, b := range m.out.Binds {
		if g := mountGrant(b); !m.ownBinds[g] {
			show := b.Flag() + " (from " + b.From + ")"
			if secret := bind.Exposes(b.Src); secret != "" {
				show += ": it would show what looks like a credential, " + secret
			}
			items = append(items, Item{grant: g, Show: show})
		}
	}
	if m.networkFrom != "" && slices.Index(networkModes, m.out.Network) > slices.Index(networkModes, m.ownNetwork) {
		items = append(items, Item{grant: Grant{kind: kindNetwork, name: m.out.Network}, Show: m.networkShow + " (from " + m.networkFrom + ")"})
	}
	if m.out.WithSSH && !m.ownSSH {
		items = append(items, Item{grant: Grant{kind: kindSSHAgent}, Show: "--with-ssh (from " + m.sshFrom + ")"})
	}
	if m.out.WithGPG && !m.ownGPG {
		items = append(items, Item{grant: Grant{kind: kindGPGAgent}, Show: "--with-gpg (from " + m.gpgFrom + ")"})
	}
	if m.out.GPU && !m.ownGPU {
		items = append(items, Item{grant: Grant{kind: kindGPU}, Show: "--with-gpu (from " + m.gpuFrom + "): the host's GPU devices, read-write"})
	}
	return items
}

// The sandbox's networks, narrowest first.
const (
	NetworkNone     = "none"
	NetworkFiltered = "filtered"
	NetworkHost     = "host"
)

var networkModes = []string{NetworkNone, NetworkFiltered, NetworkHost}

// presetRules is the filtered network's allow list before the user's,
// parsed at first use rather than at every claudebox process's start.
var presetRules = sync.OnceValue(func() []proxy.Rule {
	var rules []proxy.Rule
	for _, h := range proxy.DeveloperPreset {
		r, err := proxy.ParseRule(h)
		if err != nil {
			panic(err)
		}
		rules = append(rules, r.From("the developer preset"))
	}
	return rules
})

// where names a layer in an error: its file, or the command line.
func where(from string) string {
	if from == "" {
		return "the command line"
	}
	return from
}

// MCPName is an MCP server a launch carries in, and the repository file
// that named it, or "" when the user did.
type MCPName struct{ Name, From string }

// bindHint gives a bind error its hint; one from a file names the file.
func bindHint(err error, from string) error {
	var be *bind.Error
	if !errors.As(err, &be) {
		return err
	}
	msg := be.Error()
	if from == "" {
		from = be.From
	}
	if from != "" {
		msg = from + ": " + msg
	}
	return hint.Errorf(bindRemedy(be), "%s", msg)
}

// bindRemedy is what the user can do about a bind that cannot be made.
func bindRemedy(be *bind.Error) string {
	switch be.Problem {
	case bind.Syntax:
		flag := "--ro-bind"
		if be.Writable {
			flag = "--bind"
		}
		return flag + " ~/.cargo/registry, or " + flag + " ./data:/data"
	case bind.SourceMissing:
		return "create it first, or fix the path"
	case bind.SourceUnresolved:
		return "fix the path"
	case bind.PlantedLink:
		return "make it a directory again, or bind what it points to by its real path"
	case bind.State:
		return "bind the directory you need instead"
	case bind.HostRuntime:
		return "for the SSH agent, use --with-ssh"
	case bind.SharedTemp:
		return "bind the directory you need inside it"
	case bind.Socket:
		return "for the SSH agent, use --with-ssh; otherwise bind a directory without sockets"
	case bind.WholeHome:
		return "bind the directory you need, e.g. --bind ~/.cargo/registry, or use --ro-bind"
	case bind.HomeTools:
		return "bind the subdirectory you need, or use --ro-bind"
	case bind.DestInProject:
		return "choose a destination outside it: --bind SRC:/opt/NAME"
	case bind.DestManaged:
		return "choose another destination: --bind SRC:/opt/NAME"
	case bind.DestHidesHome, bind.DestReadOnly:
		return "choose a destination under ~, /opt or /mnt"
	case bind.CredentialStore:
		switch {
		case strings.Contains(be.Reason, "~/.ssh "):
			return "for git over SSH and signing, use --with-ssh: your agent signs inside, and ~/.ssh/config, known_hosts and the public keys are shown"
		case strings.Contains(be.Reason, "~/.gnupg "):
			return "for signing, use --with-gpg: your gpg-agent signs inside, and the public keyring is shown"
		}
		return "pass what a tool needs with --env NAME (a short-lived token), or bind a directory that holds no credential"
	case bind.HoldsCredentials, bind.ToolState:
		if len(be.Narrower) > 0 {
			return "bind the narrower path you need, e.g. " + strings.Join(be.Narrower, ", ")
		}
		return "bind the narrower path you need"
	}
	return ""
}

// expandHome reads a leading ~/ as the home directory.
func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	if p == "~" {
		return home
	}
	return p
}

// claudeNetwork is the layer of the domain lists of Claude Code's own
// sandbox in the user's settings, the allow list's start. An allowed entry
// this network cannot read is left out, which narrows it; a denied one is
// an error, as leaving it out would widen it.
func claudeNetwork(home string) (layer, bool) {
	allowed, denied, path := claudesettings.NetworkDomains(home)
	l := layer{Settings: Settings{DenyHosts: denied}, from: path + " (sandbox.network)", file: path, own: true}
	for _, a := range allowed {
		if _, err := proxy.ParseRule(a); err == nil {
			l.AllowHosts = append(l.AllowHosts, a)
		}
	}
	return l, len(l.AllowHosts) > 0 || len(l.DenyHosts) > 0
}
