package probe

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// setupFileLimit is the most of a file of the user's Claude Code setup the
// probe reads.
const setupFileLimit = 4 << 20

// namedPath is a path outside ~/.claude that the user's Claude Code setup
// names: a local plugin marketplace, a plugin's directory (installed, or
// given to --plugin-dir), a hook's or the status line's script, a carried
// MCP server's program, a file ~/.claude/CLAUDE.md imports.
type namedPath struct {
	path string // as written, ~ and $HOME expanded
	what string // what names it, for --dry-run and the notice
	dir  bool   // a directory is named (a marketplace, a plugin), not a file
	// run says a hook's, the status line's or a carried MCP server's
	// command names it, which shows it only when it is a program (a
	// private copy of it): the command may as well read its token from
	// it (token=$(cat ~/.pushover_token), --token-file ~/notes/token).
	run bool
	// workDir says claude's --add-dir names it: a directory for Claude to
	// work in, which the user brings with --bind, never shown unasked.
	workDir bool
}

// ClaudeArg is a path Claude's own command line names after Flag:
// --plugin-dir's plugins and a prompt file, shown read-only, and
// --add-dir's directory, named as not shown.
type ClaudeArg struct{ Flag, Path string }

// blankedFile is a file in ~/.claude the setup names that an empty file
// stands over inside, and why.
type blankedFile struct{ path, why string }

// claudeSetup finds what the user's Claude Code setup names outside
// ~/.claude, and what claude's own command line names (claudeArgs,
// absolute or from ~: the plugins --plugin-dir loads for the session, a
// prompt file, --add-dir's directory), and sorts it: the paths shown read-only at their place (Own),
// and those that cannot be (a secret, state, the whole home), each with
// why. Only the user's own files are read (~/.claude's settings and plugin
// lists, and the MCP servers carried in from ~/.claude.json): a list that
// lies where the sandbox can write is not obeyed, as the sandbox could name
// any file there. What is already inside (the system directories, ~/.claude,
// the project, a user's bind) is left as it is. hookOutputs are the files
// in ~/.claude the hooks' and status line's commands write (>, >>);
// claudeNamed the paths in ~/.claude the setup names, and the entries
// its hooks write into. flagNamed is what the files claude's --settings
// and --mcp-config name (claudeFlagFiles).
func claudeSetup(home, homeEnv, stateDir string, project instance.Project, binds []mount.BindSpec, state []string, secrets map[string]bool, mcp map[string]json.RawMessage, claudeArgs []ClaudeArg, flagNamed []namedPath) (own []bind.Own, scripts []mount.Script, unshown []mount.Unshown, hookOutputs []string, blanked []blankedFile, claudeNamed []string) {
	claudeDir := filepath.Join(home, ".claude")
	writable := bind.Writable(project, binds)
	var named []namedPath
	read := func(path string) []byte {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil
		}
		if paths.UnderAny(real, writable) {
			unshown = append(unshown, mount.Unshown{Path: path, What: "your Claude Code setup", Reason: "it lies where the sandbox can write, so what it names is not shown"})
			return nil
		}
		b, _ := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), setupFileLimit)
		return b
	}
	expand := func(p string) string { return expandHome(p, home, homeEnv) }
	for _, f := range []string{"settings.json", "settings.local.json"} {
		from := "~/.claude/" + f
		settingsNamed, written := settingsNames(read(filepath.Join(claudeDir, f)), from, expand)
		named = append(named, settingsNamed...)
		for _, w := range written {
			if paths.Within(w, claudeDir) && w != claudeDir {
				hookOutputs = append(hookOutputs, w)
			}
		}
	}
	named = append(named, marketplaceNames(read(filepath.Join(claudeDir, "plugins", "known_marketplaces.json")), "~/.claude/plugins/known_marketplaces.json", expand)...)
	named = append(named, pluginNames(read(filepath.Join(claudeDir, "plugins", "installed_plugins.json")), project.Root, expand)...)
	names := make([]string, 0, len(mcp))
	for name := range mcp {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		named = append(named, mcpNames(mcp[name], "MCP server "+name+" (--with-mcp)", expand)...)
	}
	named = append(named, claudeMDImports(claudeDir, writable, read, expand)...)
	above := aboveProject(project, home, stateDir, writable)
	named = append(named, above...)
	var aboveFiles []string
	for _, n := range above {
		aboveFiles = append(aboveFiles, n.path)
	}
	named = append(named, memoryImports(aboveFiles, home, writable, read, expand)...)
	named = append(named, flagNamed...)
	for _, a := range claudeArgs {
		if a.Flag == mount.AppendPromptFlag || a.Flag == claudesettings.SettingsFlag || a.Flag == claudesettings.MCPConfigFlag {
			continue // SANDBOX.md carries it (appendPrompt); copies (claudeFlagFiles)
		}
		// A plugin's directory, a folder of plugins or a plugin's .zip; a
		// prompt file; a directory to work in.
		d := filepath.Clean(expand(a.Path))
		fi, err := os.Stat(d)
		named = append(named, namedPath{path: d, what: "claude " + a.Flag, dir: err == nil && fi.IsDir(), workDir: a.Flag == "--add-dir"})
	}

	// What the settings name in ~/.claude is shown, that path alone (not
	// the rest of its directory); where a hook writes, its entry (which
	// the launch then leaves to the sandbox's hooks).
	for _, n := range named {
		if p := filepath.Clean(n.path); paths.Within(p, claudeDir) && p != claudeDir && !slices.Contains(claudeNamed, p) {
			claudeNamed = append(claudeNamed, p)
		}
	}
	for _, w := range hookOutputs {
		if rel, ok := strings.CutPrefix(w, claudeDir+"/"); ok {
			if e := filepath.Join(claudeDir, strings.Split(rel, "/")[0]); !slices.Contains(claudeNamed, e) {
				claudeNamed = append(claudeNamed, e)
			}
		}
	}

	// What is there already, at the path the setup names.
	inside := append([]string{claudeDir}, mount.SystemDirs...)
	inside = append(inside, project.Checkout)
	inside = append(inside, project.GitDirs...)
	for _, b := range binds {
		inside = append(inside, b.Dest)
	}
	seen := map[string]bool{}
	for _, n := range named {
		if !filepath.IsAbs(n.path) || seen[n.path] {
			continue
		}
		seen[n.path] = true
		real, err := filepath.EvalSymlinks(n.path)
		if err != nil {
			continue // missing: it fails on the host as well
		}
		fi, err := os.Stat(real)
		if err == nil && n.run && !n.dir && fi.IsDir() && paths.Within(n.path, home) && n.path != home && !paths.UnderAny(n.path, inside) {
			// A hook's directory (cd ~/hooks && ./notify.sh): what it runs
			// there is no path the command names, so nothing of it is
			// shown, and the hook failed inside with no word of why.
			unshown = append(unshown, mount.Unshown{Path: n.path, What: n.what, Reason: "a directory the command enters or names is shown only when you bind it"})
			continue
		}
		if err != nil || n.dir != fi.IsDir() || !n.dir && !fi.Mode().IsRegular() {
			continue
		}
		// What is inside already (the project's own files) is shown as it
		// is; ~/.claude is rebuilt from what the setup names.
		inClaude := paths.Within(n.path, claudeDir)
		if !inClaude && paths.UnderAny(n.path, inside) {
			continue
		}
		if n.workDir {
			unshown = append(unshown, mount.Unshown{Path: n.path, What: n.what, Reason: "a directory for Claude to work in is shown only when you bind it: --bind it (or --ro-bind it)"})
			continue
		}
		// A script with a credential written in it (a notification hook's
		// token), or what a command names that is no program, is not
		// shown; in ~/.claude, an empty file stands over it. What a
		// command runs is judged as read once, and that is what is shown.
		why := ""
		var script []byte
		if n.run && !n.dir {
			script, err = untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), setupFileLimit)
		}
		switch {
		case n.dir:
		case n.run && err != nil:
			why = "it cannot be read whole (over 4 MiB, or not a plain file)"
		case n.run && !isProgram(real, fi, script):
			why = "it is no script (not executable, no #! line, no script's extension): what runs may read its token from it"
		case n.run && commandScriptHolds(script), !n.run && scriptHoldsCredential(real):
			why = "a credential is written in it"
		}
		if why != "" {
			if inClaude {
				blanked = append(blanked, blankedFile{n.path, why})
			} else {
				unshown = append(unshown, mount.Unshown{Path: n.path, What: n.what, Reason: why})
			}
			continue
		}
		if !inClaude {
			if reason := setupRefusal(real, home, state, secrets); reason != "" {
				unshown = append(unshown, mount.Unshown{Path: n.path, What: n.what, Reason: reason})
				continue
			}
		}
		switch {
		case n.run:
			// A copy: what the host writes into the script during the
			// session was never judged.
			scripts = append(scripts, mount.Script{Path: n.path, Content: string(script), What: n.what})
		case !inClaude:
			own = append(own, bind.Own{Src: real, Dest: n.path, Why: n.what + ", read-only", Role: mount.HostFiles, Frozen: n.dir})
		}
	}
	// What the project's memory imports from outside it is never shown
	// for it (the sandbox writes the project); named, unless it is shown
	// anyway or is ~/.claude's, or is no file on the host: Claude Code
	// skips such an import there too, and prose ("the @/components
	// folder") reads as one.
	for _, p := range projectImports(project.Checkout, expand) {
		if paths.UnderAny(p, inside) || slices.ContainsFunc(own, func(o bind.Own) bool { return paths.Within(p, o.Dest) }) || slices.ContainsFunc(scripts, func(s mount.Script) bool { return s.Path == p }) || !hostFile(p) {
			continue
		}
		unshown = append(unshown, mount.Unshown{Path: p, What: "an import of the project's CLAUDE.md", Reason: "the sandbox writes the project, so what its CLAUDE.md imports from outside it is shown only when you bind it"})
	}
	return own, scripts, unshown, hookOutputs, blanked, claudeNamed
}

// hostFile says whether path, links followed, is a regular file on the
// host. The sandbox chose the path: an automount point at its end is not
// mounted to say.
func hostFile(path string) bool {
	var st unix.Statx_t
	return unix.Statx(unix.AT_FDCWD, path, unix.AT_NO_AUTOMOUNT, unix.STATX_TYPE, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
}

// appendPrompt is the last file claude's --append-system-prompt-file
// names, as read now, for SANDBOX.md to carry: claudebox passes SANDBOX.md
// with the same flag. Nil when none is named or it cannot be read whole.
func appendPrompt(claudeArgs []ClaudeArg, home, homeEnv string) *mount.Prompt {
	var last string
	for _, a := range claudeArgs {
		if a.Flag == mount.AppendPromptFlag {
			last = a.Path
		}
	}
	if last == "" {
		return nil
	}
	path := filepath.Clean(expandHome(last, home, homeEnv))
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	b, err := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), setupFileLimit)
	if err != nil {
		return nil
	}
	return &mount.Prompt{Path: path, Text: string(b)}
}

// scriptHoldsCredential says the script at path has a credential written
// in it, or cannot be read whole to say it has none.
func scriptHoldsCredential(path string) bool {
	return verdict.Judge("command-script", filepath.Dir(path), filepath.Base(path), func(f verdict.File) bool {
		b, err := f.Read(setupFileLimit)
		return err != nil || commandScriptHolds(b)
	})
}

// commandScriptHolds says a script a hook, the status line or a carried
// MCP server runs has a credential written in it: one a command holds,
// or one a ~/bin program's script does (credential.InScript: a token
// drawn at random given to a name that says nothing, APP=… in a Stop
// hook's script, crossed).
func commandScriptHolds(b []byte) bool {
	return claudesettings.HasCommandCredential(b) || credential.InScript(b)
}

// scriptExtensions are the names of what a hook or a status line runs
// through an interpreter (bash ~/x.sh, node ~/x.mjs) that may have
// neither a #! line nor an executable mode, and the Markdown a hook
// prints into the conversation.
var scriptExtensions = []string{".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".rb", ".pl", ".php", ".lua", ".md"}

// isProgram says the regular file at path, of status fi, holding
// content, is a program: executable, a #! script, or named as a script is.
func isProgram(path string, fi os.FileInfo, content []byte) bool {
	return fi.Mode()&0o111 != 0 || slices.Contains(scriptExtensions, strings.ToLower(filepath.Ext(path))) || bytes.HasPrefix(content, []byte("#!"))
}

// setupRefusal says why a path the setup names is not shown, "" when it is
// shown: only what holds no secret, no state and not the whole home.
func setupRefusal(real, home string, state []string, secrets map[string]bool) string {
	if reason := bind.SourceRefusal(real, false, home, state); reason != "" {
		return reason
	}
	if paths.Within(home, real) {
		return "it holds your whole home directory"
	}
	var held []string
	for s := range secrets {
		switch {
		case paths.Within(real, s):
			return "it lies in " + tildePath(s, home) + ", which holds secrets"
		case paths.Within(s, real) && paths.Exists(s):
			held = append(held, tildePath(s, home))
		}
	}
	if len(held) > 0 {
		sort.Strings(held)
		return "it holds secrets (" + strings.Join(slices.Compact(held), ", ") + ")"
	}
	return ""
}

func tildePath(p, home string) string {
	if rest, ok := strings.CutPrefix(p, home+"/"); ok {
		return "~/" + rest
	}
	return p
}

// expandHome expands what Claude Code's settings and a shell expand in a
// path: a leading ~, $HOME or ${HOME} (homeEnv, $HOME as set, which may
// reach home through a link).
func expandHome(p, home, homeEnv string) string {
	if homeEnv == "" {
		homeEnv = home
	}
	for _, v := range []string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, v); ok && (rest == "" || rest[0] == '/') {
			return homeEnv + rest
		}
	}
	return paths.ExpandHome(p, homeEnv)
}

// settingsNames are what a settings file names: extraKnownMarketplaces of
// a local source, the status line's script, the hooks' scripts; and the
// files their commands write.
func settingsNames(b []byte, from string, expand func(string) string) (named []namedPath, written []string) {
	if b == nil {
		return nil, nil
	}
	var s struct {
		Marketplaces map[string]struct {
			Source marketplaceSource `json:"source"`
		} `json:"extraKnownMarketplaces"`
		StatusLine struct {
			Command string `json:"command"`
		} `json:"statusLine"`
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil, nil
	}
	for _, name := range sortedKeys(s.Marketplaces) {
		named = append(named, s.Marketplaces[name].Source.named("plugin marketplace "+name+", named in "+from, expand)...)
	}
	read, out := commandPaths(s.StatusLine.Command, expand)
	written = append(written, out...)
	for _, p := range read {
		named = append(named, namedPath{path: p, what: "the status line's script, named in " + from, run: true})
	}
	for _, event := range sortedKeys(s.Hooks) {
		for _, group := range s.Hooks[event] {
			for _, h := range group.Hooks {
				read, out := commandPaths(h.Command, expand)
				written = append(written, out...)
				for _, p := range read {
					named = append(named, namedPath{path: p, what: "a " + event + " hook's script, named in " + from, run: true})
				}
			}
		}
	}
	return named, written
}

// marketplaceSource is where a plugin marketplace comes from; only the
// local ones, a directory or a file, name a path.
type marketplaceSource struct {
	Source string `json:"source"`
	Path   string `json:"path"`
}

func (m marketplaceSource) named(what string, expand func(string) string) []namedPath {
	switch {
	case m.Path == "":
		return nil
	case m.Source == "directory":
		return []namedPath{{path: expand(m.Path), what: what, dir: true}}
	case m.Source == "file":
		return []namedPath{{path: expand(m.Path), what: what}}
	}
	return nil
}

// marketplaceNames are the local marketplaces Claude Code has added
// (claude plugin marketplace add DIR writes ~/.claude/plugins/
// known_marketplaces.json, 2.1.330).
func marketplaceNames(b []byte, from string, expand func(string) string) []namedPath {
	var known map[string]struct {
		Source marketplaceSource `json:"source"`
	}
	if b == nil || json.Unmarshal(b, &known) != nil {
		return nil
	}
	var named []namedPath
	for _, name := range sortedKeys(known) {
		named = append(named, known[name].Source.named("plugin marketplace "+name+", named in "+from, expand)...)
	}
	return named
}

// pluginNames are the installed plugins' directories (claude plugin
// install copies a plugin into ~/.claude/plugins/cache, already shown; an
// older install, or a local plugin, may point elsewhere), of the
// installations of the user's scope and of project's folders (the rule of
// the list's copy, pluginsOfProject): one of another project's scope
// lies, most often, in that project.
func pluginNames(b []byte, project string, expand func(string) string) []namedPath {
	var installed struct {
		Plugins map[string][]struct {
			InstallPath string          `json:"installPath"`
			ProjectPath json.RawMessage `json:"projectPath"`
		} `json:"plugins"`
	}
	if b == nil || json.Unmarshal(b, &installed) != nil {
		return nil
	}
	var named []namedPath
	for _, name := range sortedKeys(installed.Plugins) {
		for _, p := range installed.Plugins[name] {
			var at string
			if p.ProjectPath != nil && (json.Unmarshal(p.ProjectPath, &at) != nil || !agent.BearsOn(at, project)) {
				continue
			}
			if p.InstallPath != "" {
				named = append(named, namedPath{path: expand(p.InstallPath), what: "plugin " + name + ", named in ~/.claude/plugins/installed_plugins.json", dir: true})
			}
		}
	}
	return named
}

// mcpNames are what a carried stdio MCP server runs: its command, and the
// arguments that are files (its script).
func mcpNames(def json.RawMessage, what string, expand func(string) string) []namedPath {
	var d struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(def, &d) != nil {
		return nil
	}
	var named []namedPath
	for _, p := range append([]string{d.Command}, d.Args...) {
		if p = expand(p); filepath.IsAbs(p) {
			// Run as a hook's command is: an argument that is no program
			// (--token-file ~/notes/token) is not shown.
			named = append(named, namedPath{path: filepath.Clean(p), what: what, run: true})
		}
	}
	return named
}

// commandPaths are the absolute paths a hook's or status line's shell
// command runs or reads (its words that are paths, quotes taken off), and
// those it writes (after >, >> or 2>).
func commandPaths(command string, expand func(string) string) (read, written []string) {
	redirect := false
	word := func(w string) {
		w = strings.Trim(w, `"'`)
		if w == "" {
			return
		}
		p := expand(w)
		switch {
		case !filepath.IsAbs(p):
		case redirect:
			written = append(written, filepath.Clean(p))
		default:
			read = append(read, filepath.Clean(p))
		}
		redirect = false
	}
	start := 0
	for i, r := range command {
		if strings.ContainsRune(" \t\n;&|()>", r) {
			word(command[start:i])
			start = i + 1
			if r == '>' {
				redirect = true
			}
		}
	}
	word(command[start:])
	return read, written
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
