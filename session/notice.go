package session

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// noticesFile records, in the state directory, the bash-era files whose
// notice the user has seen.
const noticesFile = "notices"

// noticeLegacy says, once per file, what a bash-era env file read at this
// launch is in the new configuration. It names variables, never values.
func (s *Session) noticeLegacy() error {
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
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, guard.ProjectConfigFile)
			printable.Say(os.Stderr, "hint: kept outside the repository, a [project.%q] table in %s needs no approval", s.plan.Project.Root, config.UserConfigPath(s.home))
		} else {
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, config.UserConfigPath(s.home))
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

// noticeLimit is the most of a project's notice record claudebox reads.
const noticeLimit = 1 << 20

// noticeLeftOut names, once per project, what the host has that the
// launch left out, with the option that brings it: the MCP servers of
// ~/.claude.json not named, the variables dropped, what the copies of
// the agents' configuration left out, what the user's Claude Code
// setup names that is not shown, and an IDE's offered connection. Names
// only, never
// a definition or a value. The record is kept in the state directory, out
// of the sandbox's reach; one that cannot be written names them again next
// time.
func (s *Session) noticeLeftOut() {
	dir, name := instance.RecordPath(s.stateDir, instance.NoticeRecords, s.plan.Project.Root)
	seen, _ := untrusted.ReadFile(dir, name, noticeLimit)
	lines := strings.Fields(string(seen))
	var fresh []string
	unseen := func(kind string, names []string) []string {
		var out []string
		for _, n := range names {
			// One record a line, read back as fields.
			key := kind + strings.ReplaceAll(n, " ", "%20")
			if !slices.Contains(lines, key) {
				out = append(out, n)
				fresh = append(fresh, key)
			}
		}
		return out
	}
	conf := config.UserConfigPath(s.home)
	if servers := unseen("mcp:", s.leftOutMCP); len(servers) > 0 {
		printable.Say(os.Stderr, "claudebox: MCP servers left out of the sandbox: %s", strings.Join(servers, ", "))
		printable.Say(os.Stderr, "hint: bring one with --with-mcp %s, or mcp = [%q] in %s", servers[0], servers[0], conf)
	}
	// A CA bundle's variable passes with its file, after the environment
	// was resolved.
	dropped := slices.DeleteFunc(slices.Clone(s.env.Dropped), func(n string) bool { return slices.Contains(s.plan.Env, n) })
	// Passed, it would name a directory that is never shown: the way to
	// it is ~/.claude.
	if slices.Contains(dropped, claudeConfigVar) {
		dropped = slices.DeleteFunc(dropped, func(n string) bool { return n == claudeConfigVar })
		if d := movedClaudeConfig(s.home); d != "" && len(unseen("env:", []string{claudeConfigVar})) > 0 {
			printable.Say(os.Stderr, "claudebox: %s moves claude's configuration to %s, and claude inside reads ~/.claude: the settings, commands, plugins and login there are not shown", claudeConfigVar, d)
			printable.Say(os.Stderr, "hint: a ~/.claude that links there is shown as ~/.claude is, read-only: ln -s %s ~/.claude", d)
		}
	}
	if vars := unseen("env:", dropped); len(vars) > 0 {
		printable.Say(os.Stderr, "claudebox: variables not passed into the sandbox: %s", strings.Join(vars, ", "))
		printable.Say(os.Stderr, "hint: pass one with --env %s, or env = [%q] in %s", vars[0], vars[0], conf)
	}
	if git := unseen("git:", s.plan.CredentialsLeftOut); len(git) > 0 {
		printable.Say(os.Stderr, "claudebox: left out of the private copies inside (only what is known to hold no credential is copied): %s", strings.Join(git, ", "))
		printable.Say(os.Stderr, "hint: git inside works without them; for a push over HTTPS, use --with-ssh and an SSH remote, or a credential helper on the host")
	}
	files := slices.Sorted(maps.Keys(s.leftOutConfig))
	for _, f := range files {
		shown := f
		if rel, ok := strings.CutPrefix(f, s.plan.Home+"/"); ok {
			shown = "~/" + rel
		}
		if keys := unseen("config:"+shown+":", s.leftOutConfig[f]); len(keys) > 0 {
			printable.Say(os.Stderr, "claudebox: left out of the sandbox's copy of %s: %s", shown, strings.Join(keys, ", "))
			if f == "claude "+claudesettings.MCPConfigFlag || s.plan.ClaudeFlag(f) == claudesettings.MCPConfigFlag {
				printable.Say(os.Stderr, "hint: only servers that hold no token are copied; to carry one with its token, add it on the host (claude mcp add-json NAME '…') and name it: --with-mcp NAME")
				continue
			}
			printable.Say(os.Stderr, "hint: only what is known to hold no credential is copied; pass a variable with --env NAME, or env = [\"NAME\"] in %s", conf)
		}
	}
	var paths []string
	for _, u := range s.plan.Unshown {
		paths = append(paths, u.Path)
	}
	if names := unseen("unshown:", paths); len(names) > 0 {
		for _, u := range s.plan.Unshown {
			if slices.Contains(names, u.Path) {
				printable.Say(os.Stderr, "claudebox: not shown inside: %s", u)
			}
		}
		printable.Say(os.Stderr, "hint: bring one read-only with --ro-bind %s (the secrets and state inside stay hidden), or move it out of there", names[0])
	}
	var claudeHidden []string
	for _, e := range s.plan.ClaudeHidden {
		claudeHidden = append(claudeHidden, "~/"+strings.TrimPrefix(e, s.plan.Home+"/"))
	}
	if hidden := unseen("claude-hidden:", claudeHidden); len(hidden) > 0 {
		printable.Say(os.Stderr, "claudebox: not shown inside, as neither Claude Code's configuration nor named by your settings: %s", strings.Join(hidden, ", "))
		printable.Say(os.Stderr, "hint: a script your settings name (a hook's, the status line's) is shown; to bring another file, move it out of ~/.claude and --ro-bind it")
	}
	// What claudebox's own mounts leave out (a toolchain's directories
	// that are not where tools run from, a secret beside a configuration):
	// a tool that needs one fails inside, where only --dry-run named it.
	var ownHidden []string
	for _, h := range s.plan.Hidden {
		if h.Own {
			ownHidden = append(ownHidden, h.Path)
		}
	}
	if hidden := unseen("own-hidden:", ownHidden); len(hidden) > 0 {
		printable.Say(os.Stderr, "claudebox: not shown inside, beside what is shown of the directory: %s", strings.Join(hidden, ", "))
		printable.Say(os.Stderr, "hint: a tool that needs one fails inside; bring it read-only with --ro-bind %s, if it holds no secret", hidden[0])
	}
	if s.ideOffered() && len(unseen("ide:", []string{"~/.claude/ide"})) > 0 {
		printable.Say(os.Stderr, "claudebox: your IDE's connection to Claude Code is not carried in (its lock in ~/.claude/ide holds the connection's token): /ide inside finds no IDE")
		printable.Say(os.Stderr, "hint: review the session's changes in your IDE on the host; to connect it, run claude on the host")
	}
	var outputPaths []string
	for _, o := range s.plan.HookOutputs {
		outputPaths = append(outputPaths, o.Path)
	}
	if outputs := unseen("hook-output:", outputPaths); len(outputs) > 0 {
		printable.Say(os.Stderr, "claudebox: what your hooks write in ~/.claude stays in the sandbox and is lost at exit: %s", strings.Join(outputs, ", "))
		printable.Say(os.Stderr, "hint: to keep it, have the hook write to a directory you bind with --bind DIR")
	}
	// Outside git the start keeps no copy of the files: --undo and
	// --changes, which the README offers, said so only once asked, after
	// the session.
	if s.plan.Project.GitDir == "" && len(unseen("undo:", []string{"outside-git"})) > 0 {
		printable.Say(os.Stderr, "claudebox: %s is not in a git repository: sessions here keep no copy of its files, and claudebox --undo and --changes will not work", s.plan.Project.Checkout)
		printable.Say(os.Stderr, "hint: start claudebox in a git repository (git init here, or a repository below), for each session's start to keep the files as it found them")
	}
	if len(fresh) > 0 && os.MkdirAll(dir, 0o700) == nil {
		untrusted.WriteFile(dir, name, []byte(strings.Join(append(lines, fresh...), "\n")+"\n"), 0o600)
	}
}

// ideOffered says ~/.claude/ide holds a lock file, through which an IDE's
// extension offers Claude Code a connection (its port and token): state,
// never shown inside, which Claude inside's /ide says only as "No
// available IDEs detected".
func (s *Session) ideOffered() bool {
	if s.shell || !s.agent.IsClaude() {
		return false
	}
	entries, _ := os.ReadDir(filepath.Join(s.home, ".claude", "ide"))
	return slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".lock") })
}

// leaveOut records what the copy of the host's file at dest (its path
// inside) left out, for noticeLeftOut.
func (s *Session) leaveOut(dest string, names []string) {
	if len(names) == 0 {
		return
	}
	if s.leftOutConfig == nil {
		s.leftOutConfig = map[string][]string{}
	}
	s.leftOutConfig[dest] = names
}

// warnUnprotected says, at each launch, what the host obeys that no guard
// can protect: a relative PATH entry, or a dotfile or PATH entry that is the
// project itself.
func (s *Session) warnUnprotected() {
	for _, u := range s.plan.Unprotected {
		printable.Say(os.Stderr, "claudebox: not protected: %s: %s", u.From, u.Reason)
	}
	if len(s.plan.Unprotected) > 0 {
		printable.Say(os.Stderr, "hint: what the sandbox writes there runs on the host; take it out of PATH (or your dotfiles' links) before you start claudebox, and review what the session wrote")
	}
}

// warnVariableGuards says, at each launch, which of the project's files
// are read-only inside because a variable of the host's environment
// names them (DATABASE_URL=sqlite:////home/u/proj/db.sqlite3): any file
// a variable names may be what a host tool obeys, and the guard count
// alone left the session's failed writes unexplained.
func (s *Session) warnVariableGuards() {
	var names []string
	for _, g := range s.plan.Guards {
		name, ok := strings.CutPrefix(g.From, "$")
		if !ok || !paths.Within(g.Path, s.plan.Project.Checkout) {
			continue
		}
		printable.Say(os.Stderr, "claudebox: read-only inside, as $%s names it and a host tool may obey it: %s", name, g.Path)
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) > 0 {
		printable.Say(os.Stderr, "hint: for the session to write it, start claudebox without the variable: env -u %s claudebox", strings.Join(names, " -u "))
	}
}

// noticeGPU says, at every launch with --with-gpu, which GPU device the
// sandbox lacks and why.
func (s *Session) noticeGPU() {
	if g := s.plan.GPU; g != nil {
		for _, m := range g.Missing {
			printable.Say(os.Stderr, "claudebox: --with-gpu: %s", m)
		}
	}
}

// claudeConfigVar moves the host's claude's configuration from ~/.claude.
const claudeConfigVar = "CLAUDE_CONFIG_DIR"

// movedClaudeConfig is the directory claudeConfigVar names, when it is
// not the one ~/.claude is or leads to; "" otherwise.
func movedClaudeConfig(home string) string {
	d := claudeConfigDir(home)
	if d == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		real = d
	}
	if own, err := filepath.EvalSymlinks(filepath.Join(home, ".claude")); err == nil && own == real {
		return ""
	}
	return d
}
