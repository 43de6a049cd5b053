// Package guard finds what the host executes or obeys inside the
// sandbox's writable mounts (git hooks and config, shell and editor files,
// Claude Code's project settings, what the home and PATH lead to), which
// the plan then mounts read-only, and makes the stand-ins for what is
// missing.
package guard

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/leafdirs"
	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/projectfiles"
	"github.com/claudebox/claudebox/untrusted"
)

// ProjectConfigFile names a repository's own claudebox settings, in its
// checkout. Whoever wrote the repository wrote it, so what it adds waits
// for the user's approval.
const ProjectConfigFile = ".claudebox.toml"

// standsInAsDir says whether a missing work-tree guard stands in as a
// directory: the tools that obey these read a directory. Every other one
// is a file, whose stand-in must not be a directory (git warns that it
// cannot read a .gitmodules that is one, Claude Code that an .mcp.json is
// not a regular file).
func standsInAsDir(name string) bool {
	switch name {
	case ".vscode", ".idea", ".claude", ".codex", ".gemini":
		return true
	}
	return false
}

// hookManagerFile reports whether a name at the top of a work tree is a
// hook manager's configuration or scripts, which the repository's
// installed hooks run on the host's git commit: the registry's prefixes
// that are guarded where they exist.
func hookManagerFile(name string, fold bool) (projectfiles.Entry, bool) {
	e, ok := projectfiles.Lookup(name, fold)
	return e, ok && e.Prefix && e.Protection == projectfiles.WhereExists
}

// PathFrom says an Obeyed path is a PATH entry.
const PathFrom = "your PATH"

// Obeyed is a real path that the host runs or obeys wherever it is: a
// file behind one of the home's dotfiles, one the user's git configuration
// points at, or a PATH entry. From names how the host reaches it.
type Obeyed struct {
	Path, From string
	// GitReads: a file git reads whenever it exists (a configuration, an
	// excludes or attributes file), which a no-op stand-in replaces when
	// missing, as in a repository.
	GitReads bool
	// GitDir: a git directory the host's git uses wherever it runs
	// ($GIT_DIR), guarded as a repository's.
	GitDir bool
	// UserGitConfig: one of the user's own git configuration files
	// (global or system), whose core.hooksPath applies to every
	// repository without one of its own.
	UserGitConfig bool
}

// WorkTreeNames are the names of the work tree's guards, at its top: the
// registry's that a stand-in takes the place of where missing.
func WorkTreeNames() []string { return projectfiles.Names(projectfiles.StandIn) }

// nestedDepth is how deep below the project the probe looks for other
// repositories (a folder of repositories, vendored clones): ~/code/x/.git
// is at depth 1, ~/code/org/x/.git at 2. Each level reads every directory
// of the one above (30 repositories of 10×10 directories: about 4 ms at
// depth 2, 11 ms at 3), so it stays shallow; node_modules is not entered.
const nestedDepth = 2

// guardProbe collects the guards of a project, the directories to pin, and
// the protected paths that are symlinks, which no mount can protect.
type guardProbe struct {
	home     string
	roots    []string // the writable mounts
	seen     map[string]bool
	repos    map[string]bool // git dirs already guarded
	common   string          // the project's own repository's, whose worktrees folder is the sandbox's own inside
	guards   []mount.Guard
	pins     []string
	symlinks []string
	// redirects are nested repositories whose redirects lead elsewhere,
	// and git config files git itself would refuse.
	redirects []error
	// userHooksPaths are the core.hooksPath values of the user's own git
	// config.
	userHooksPaths []string
	// gitCommands are the commands of each git config file read
	// (gitconfig.RunsCommand), by its path; userConfigs, the user's files read.
	gitCommands map[string][]string
	userConfigs []string
}

// Find finds what needs protecting in the project's writable mounts:
// the project's own files the host obeys, and obeyed, what the host obeys
// from the user's home and PATH, wherever it lands in them. unguarded are
// the obeyed paths that hold a writable mount whole, which a guard would
// make read-only. leaves are the statuses of the deepest directories the
// look for nested repositories reads, which the look for hard links
// reads beside it (nil where none does).
func Find(home string, project instance.Project, obeyed []Obeyed, leaves *leafdirs.Statuses) (guards []mount.Guard, pins, symlinks []string, redirects []error, unguarded []mount.Unprotected) {
	g := &guardProbe{home: home, roots: append([]string{project.Checkout}, project.GitDirs...), seen: map[string]bool{}, repos: map[string]bool{}, common: project.CommonDir}
	for _, o := range obeyed {
		if o.GitDir {
			continue
		}
		// A PATH entry above the project runs only its entries, which the
		// sandbox cannot create (the project is a mount point).
		if i := slices.IndexFunc(g.roots, func(r string) bool {
			return r == o.Path || o.From != PathFrom && paths.Within(r, o.Path)
		}); i >= 0 {
			unguarded = append(unguarded, mount.Unprotected{From: o.From, Reason: g.roots[i] + ", which the sandbox writes, is or lies in " + o.Path + ", which the host obeys through it"})
			continue
		}
		why := "the host obeys it through " + o.From
		if o.From == PathFrom {
			why = "on your PATH: the host's shell runs what is there"
		}
		g.add(mount.Guard{Path: o.Path, From: o.From, NoOp: o.GitReads, Why: why})
	}
	// The user's files, resolved (home-manager and stow link them), as
	// the host's git reads them: those in a writable mount are guarded
	// above.
	for _, o := range obeyed {
		// GIT_CONFIG_GLOBAL=/dev/null reads as nothing; a FIFO or a
		// directory refuses the launch (config).
		if fi, err := os.Lstat(o.Path); o.UserGitConfig && err == nil && fi.Mode()&os.ModeDevice == 0 {
			read := map[string]bool{}
			g.userHooksPaths = append(g.userHooksPaths, g.includedHooksPaths(o.Path, read, 0)...)
			for config := range read {
				g.userConfigs = append(g.userConfigs, config)
			}
		}
	}
	for _, e := range projectfiles.Entries {
		if e.Protection != projectfiles.StandIn {
			continue
		}
		path := filepath.Join(project.Checkout, e.Name)
		if e.Name == ".claude" {
			g.claudeDir(path, e.Why)
			continue
		}
		// Nothing stands in for a missing .gitmodules: git's fetch and pull
		// look for one, and warn about any that is not a file (a socket:
		// "No such device or address"); a regular file shows in git
		// status. One the sandbox makes is the exit audit's, and git
		// takes no command from it.
		if e.Name == ".gitmodules" && (!paths.Exists(path) || instance.IsPlaceholder(path)) {
			continue
		}
		g.add(mount.Guard{Path: path, Copy: e.Name == ".mcp.json", File: !standsInAsDir(e.Name), Why: e.Why})
	}
	g.toolFiles(project.Checkout, "")
	if project.CommonDir != "" {
		g.repo(project.Checkout, project.GitDir, project.CommonDir)
	} else {
		// A repository the sandbox creates here would bring config and hooks
		// that git on the host runs.
		g.add(mount.Guard{Path: filepath.Join(project.Checkout, ".git"), Why: "a new repository's config and hooks"})
		g.hookManagers(project.Checkout)
	}
	g.nested(project.Checkout, nestedDepth, leaves)
	// After the project's own, whose work tree a relative hooksPath needs.
	for _, o := range obeyed {
		if o.GitDir {
			g.commonDir(o.Path, "")
		}
	}
	return g.guards, g.pins, g.symlinks, g.redirects, unguarded
}

// claudeDir guards a .claude directory, with private copies of the
// settings files Claude Code saves (its permission rules): guarded
// themselves when it exists, in its stand-in when it does not.
func (g *guardProbe) claudeDir(path, why string) {
	fi, err := os.Lstat(path)
	if err != nil || instance.IsStandIn(path, fi) {
		g.add(mount.Guard{Path: path, Why: why, Saved: claudesettings.ProjectCopies})
		return
	}
	g.add(mount.Guard{Path: path, Why: why})
	if !fi.IsDir() {
		return
	}
	for _, f := range claudesettings.ProjectCopies {
		g.add(mount.Guard{Path: filepath.Join(path, f), Copy: true, FileStandIn: true, Why: "Claude Code project settings"})
	}
	// Claude Code saves a settings file through a temporary file, made in
	// the folder claudesettings.StagingDir beside it where there is one,
	// else beside the file; in the read-only .claude that fails (EROFS),
	// and it then saves nothing, a "don't ask again" nor the answer to
	// .mcp.json's servers. There, the folder is the sandbox's own, and
	// the saves reach the private copies.
	g.add(mount.Guard{Path: filepath.Join(path, claudesettings.StagingDir), Private: true, Why: "where Claude Code writes a settings file before it takes its place"})
}

// repo guards one repository whose work tree top is top: its git
// directories, its .git file, its submodules and its hook managers.
func (g *guardProbe) repo(top, gitDir, common string) {
	g.commonDir(common, top)
	if dotgit := filepath.Join(top, ".git"); isFile(dotgit) {
		g.add(mount.Guard{Path: dotgit, Why: "the checkout's pointer to its git directory"})
	}
	g.hookManagers(top)
	// Submodules: host git runs inside them on its own (git status), with
	// their config and hooks. A submodule's git dir is under modules/ (see
	// commonDir), or, embedded, its own .git directory.
	for _, p := range g.submodulePaths(filepath.Join(top, ".gitmodules")) {
		sub := filepath.Join(top, p)
		dotgit := filepath.Join(sub, ".git")
		switch {
		case isFile(dotgit):
			g.add(mount.Guard{Path: dotgit, Why: "a submodule's pointer to its git directory"})
		case isDir(dotgit):
			g.nestedRepo(sub)
		}
	}
	// git submodule update --init adopts a git directory already at
	// modules/<name> and runs its hooks: where a submodule has none yet, a
	// private empty directory stands in, so one made inside stays there.
	for _, name := range submoduleNames(filepath.Join(top, ".gitmodules")) {
		dir := filepath.Join(common, "modules", name)
		if fi, err := os.Lstat(dir); err != nil || instance.IsStandIn(dir, fi) {
			g.add(mount.Guard{Path: dir, Why: "the git directory of a submodule not yet initialised, which the host's git submodule update would adopt"})
		}
	}
}

// toolFiles guards the registry's files at the top of a work tree that
// are guarded where they exist, and exist. Where the directory folds case,
// the lookup does too, and finds .CURSOR for .cursor.
func (g *guardProbe) toolFiles(top, note string) {
	for _, e := range projectfiles.Entries {
		if e.Protection != projectfiles.WhereExists || e.Prefix {
			continue
		}
		if path := filepath.Join(top, e.Name); paths.Exists(path) {
			g.add(mount.Guard{Path: path, Why: e.Why + note})
		}
	}
}

// operations guards a worktree's git directory's state of a rebase, git am,
// cherry-pick or revert in progress: its todo lists commands (exec) that
// the host's git rebase --continue runs, and git status tells the user to
// run it. One in progress is read-only. Where none is, nothing stands in:
// git reads anything at these paths (a directory, a file, a socket) as an
// operation in progress, in its status, and its rebase, am and cherry-pick
// then refuse to start, on the host and inside alike. One the sandbox
// starts is its own work, and what its todo would run is the exit audit's.
func (g *guardProbe) operations(gitDir string) {
	for _, d := range mount.GitOperations {
		if path := filepath.Join(gitDir, d); paths.Exists(path) && !instance.IsPlaceholder(path) {
			g.add(mount.Guard{Path: path, Why: "git's state of a rebase, am, cherry-pick or revert in progress, whose todo the host's git runs"})
		}
	}
}

// hookManagers guards the hook managers' files at the top of a work tree
// that exist; one created during a session is left to the session's watch.
func (g *guardProbe) hookManagers(top string) {
	entries, _ := os.ReadDir(top)
	fold := len(entries) > 0 && projectfiles.FoldsCaseAt(top)
	for _, e := range entries {
		if m, ok := hookManagerFile(e.Name(), fold); ok {
			g.add(mount.Guard{Path: filepath.Join(top, e.Name()), Why: m.Why})
		}
	}
}

// commonDir guards what git reads as configuration or follows as a
// redirect in a repository's common git directory, its linked worktrees'
// directories and its submodules' git directories. top is the work tree
// that a relative core.hooksPath is relative to ("" when unknown).
func (g *guardProbe) commonDir(common, top string) {
	if g.repos[common] {
		return
	}
	g.repos[common] = true
	config := filepath.Join(common, "config")
	g.add(mount.Guard{Path: config, NoOp: true, GitConfig: true, Why: "git configuration (fsmonitor, hooksPath, aliases run commands)"})
	g.add(mount.Guard{Path: filepath.Join(common, "config.worktree"), NoOp: true, GitConfig: true, Why: "git configuration of the main worktree"})
	// git never writes a commondir here, but follows one if it exists.
	g.add(mount.Guard{Path: filepath.Join(common, "commondir"), NoOp: true, Why: "git's pointer to the repository"})
	g.add(mount.Guard{Path: filepath.Join(common, "hooks"), Why: "git hooks"})
	g.operations(common)
	if isDir(filepath.Join(common, "info")) {
		g.add(mount.Guard{Path: filepath.Join(common, "info", "attributes"), NoOp: true, Why: "git attributes, which choose the configured filter and diff drivers"})
	}
	// What the sandbox creates shows in the host's git status: nothing
	// hides a planted file (a subdirectory's .claude) from the user.
	// Linked worktrees read the common one.
	g.add(mount.Guard{Path: filepath.Join(common, "info", "exclude"), NoOp: true, Why: "git's excludes, which would hide what the sandbox creates from the host's git status"})
	// Every hooks path the repository's config or a file it includes
	// names, whichever condition applies; else the user's.
	read := map[string]bool{}
	hooksPaths := g.includedHooksPaths(config, read, 0)
	if len(hooksPaths) == 0 {
		hooksPaths = g.userHooksPaths
	}
	if top != "" {
		// What git's configuration, the repository's or the user's, runs
		// by its path in the work tree, from its top: a filter's sh
		// tools/strip.sh, which git status runs on a file whose time
		// changed, ran the session's edit before it showed it.
		var commands []string
		for config := range read {
			commands = append(commands, g.gitCommands[config]...)
		}
		for _, config := range g.userConfigs {
			commands = append(commands, g.gitCommands[config]...)
		}
		g.commandFiles(top, commands)
	}
	for _, hooksPath := range hooksPaths {
		if hooksPath = paths.ExpandHome(hooksPath, g.home); !filepath.IsAbs(hooksPath) {
			if top == "" {
				continue
			}
			hooksPath = filepath.Join(top, hooksPath)
		}
		hooksPath = filepath.Clean(hooksPath)
		// husky's stubs in .husky/_ run the scripts in .husky itself.
		if filepath.Base(hooksPath) == "_" {
			hooksPath = filepath.Dir(hooksPath)
		}
		g.add(mount.Guard{Path: hooksPath, Why: "git hooks (core.hooksPath) and what they run"})
	}
	// Every linked worktree's pointers to the common dir and back to its
	// checkout, and its own config. git makes each a directory with a
	// gitdir file, pinned while a session runs; anything else there is the
	// sandbox's, made for no checkout of the host (a checkout's .git
	// leading to it is the exit audit's finding), and guarding it would
	// refuse every launch, or cost it a stand-in each: a session's 250
	// empty folders there made the next launch's bwrap take over ten
	// seconds.
	// The folder of them read-only, but for each of those: git worktree
	// prune, and git gc, which runs it, remove an entry with no gitdir
	// file recursively, opening it through a link, and the host's git
	// runs while a session does (a commit in another terminal, and the
	// gc it starts): a link the sandbox made there emptied a folder of
	// the user's. Inside, git worktree add fails (claudebox -w makes one),
	// but in the project's own repository, whose folder is the session's
	// own inside, where Claude Code's worktrees are made: no host git
	// reads it.
	worktrees := filepath.Join(common, "worktrees")
	entries, _ := os.ReadDir(worktrees)
	var linked []string
	for _, e := range entries {
		if fi, err := os.Lstat(filepath.Join(worktrees, e.Name(), "gitdir")); e.IsDir() && err == nil && fi.Mode().IsRegular() {
			linked = append(linked, filepath.Join(worktrees, e.Name()))
		}
	}
	g.add(mount.Guard{Path: worktrees, MakeDir: true, Private: common == g.common, Writable: linked, Why: "git's records of linked worktrees, which git worktree prune and git gc remove through a link"})
	for _, e := range entries {
		dir := filepath.Join(common, "worktrees", e.Name())
		if fi, err := os.Lstat(filepath.Join(dir, "gitdir")); !e.IsDir() || err != nil || !fi.Mode().IsRegular() {
			continue
		}
		g.add(mount.Guard{Path: filepath.Join(dir, "commondir"), NoOp: true, Why: "a worktree's pointer to the repository"})
		g.add(mount.Guard{Path: filepath.Join(dir, "gitdir"), NoOp: true, Why: "a worktree's pointer to its checkout"})
		g.add(mount.Guard{Path: filepath.Join(dir, "config.worktree"), NoOp: true, GitConfig: true, Why: "a worktree's git configuration"})
		g.operations(dir)
	}
	g.submoduleGitDirs(filepath.Join(common, "modules"))
}

// submoduleGitDirs guards each submodule git dir under dir, at any depth
// (names may contain slashes, and submodules nest).
// linkDepth is how deep below a guarded directory of the project's the
// probe looks for links (.claude/commands/team/x.md is at 3).
const linkDepth = 3

// linksIn guards what the links in dir, a guarded directory of the
// project's, lead to, depth levels down: a hook linked to the project's
// script (ln -s ../../scripts/pre-commit .git/hooks/pre-commit), a
// .vscode/tasks.json or .claude/hooks linked to a monorepo's shared copy.
// The host runs or obeys it, and it may lie in the work tree, where the
// guard on dir does not reach. A link on the way there, or one it leads
// to, refuses the launch, as for any guard.
func (g *guardProbe) linksIn(dir string, depth int) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				continue
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			g.add(mount.Guard{Path: filepath.Clean(target), File: !isDir(path), Why: "what " + path + " links to"})
		case e.IsDir() && depth > 1:
			g.linksIn(path, depth-1)
		}
	}
}

func (g *guardProbe) submoduleGitDirs(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !paths.Exists(filepath.Join(path, "HEAD")) {
			g.submoduleGitDirs(path)
			continue
		}
		top := ""
		if wt := gitconfig.Last(g.config(filepath.Join(path, "config")), "core.worktree"); wt != "" {
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(path, wt)
			}
			top = filepath.Clean(wt)
		}
		g.commonDir(path, top)
	}
}

// nested guards the repositories and the .claude directories below dir,
// depth levels deep at most, in the order of a walk by name.
func (g *guardProbe) nested(dir string, depth int, leaves *leafdirs.Statuses) {
	for _, f := range findNested(dir, depth, leaves) {
		if f.repo {
			g.nestedRepo(f.dir)
		}
		// Claude Code started in the directory obeys its .claude (a
		// monorepo's package): one that exists stays as it is. One the
		// sandbox creates is left to the exit audit (docs/security.md).
		if f.claude {
			g.claudeDir(filepath.Join(f.dir, ".claude"), "Claude Code project settings, which Claude Code started in that directory obeys")
		}
	}
}

// nestedFind is a directory that holds a .git (repo) or a .claude
// directory (claude).
type nestedFind struct {
	dir          string
	repo, claude bool
}

// findNested lists the directories below dir, depth levels deep at most,
// that hold a .git or a .claude directory, in the order of a walk by name.
// Only directories are entered, never a link, a .git or node_modules. The
// directories of the first level are looked through side by side: in a
// large tree the lookups are the probe's cost, and each waits on the
// kernel alone. The deepest directories' statuses are leaves' (the look
// for hard links reads them beside this one).
func findNested(dir string, depth int, leaves *leafdirs.Statuses) []nestedFind {
	f, names := subdirs(dir)
	if f == nil {
		return nil
	}
	defer f.Close()
	fd := int(f.Fd())
	found := make([][]nestedFind, len(names))
	parallel.Each(len(names), func(i int) { lookNested(fd, dir, "", names[i], depth, leaves, &found[i]) })
	return slices.Concat(found...)
}

// lookNested looks at the directory name in parent (rel beneath the
// project), open on fd, and below it, depth-1 levels deep, as findNested
// does. Looked up from the parent's descriptor: in a large tree, thousands
// of lookups skip the path above it.
func lookNested(fd int, parent, rel, name string, depth int, leaves *leafdirs.Statuses, found *[]nestedFind) {
	sub := filepath.Join(parent, name)
	var st unix.Stat_t
	here := nestedFind{dir: sub}
	// At the deepest level, a directory that holds none (its status's
	// link count, mostly taken from the look for hard links) holds no
	// .claude directory: one lookup instead of two. A .git may be a file
	// (a submodule's, a linked worktree's), so that one is looked up.
	mayHoldDir := true
	if depth <= 1 {
		s, err := leaves.At(fd, rel, name)
		mayHoldDir = err != nil || !s.HoldsNoDir()
	}
	here.repo = unix.Fstatat(fd, name+"/.git", &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	here.claude = mayHoldDir && unix.Fstatat(fd, name+"/.claude", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
	if here.repo || here.claude {
		*found = append(*found, here)
	}
	if depth <= 1 {
		return
	}
	f, names := subdirs(sub)
	if f == nil {
		return
	}
	defer f.Close()
	below := filepath.Join(rel, name)
	for _, n := range names {
		lookNested(int(f.Fd()), sub, below, n, depth-1, leaves, found)
	}
}

// subdirs opens dir and lists, sorted, the directories in it to look
// through: none is a link, a .git or node_modules. The file is nil if dir
// cannot be read.
func subdirs(dir string) (*os.File, []string) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil
	}
	entries, _ := f.ReadDir(-1)
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != ".git" && e.Name() != "node_modules" {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return f, names
}

// nestedRepo guards a repository inside the project as the project's own,
// with the files a host tool in it would run. One whose redirects lead
// elsewhere is refused, as the project's would be.
func (g *guardProbe) nestedRepo(top string) {
	if fi, err := os.Lstat(filepath.Join(top, ".git")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		g.symlinks = append(g.symlinks, filepath.Join(top, ".git"))
		return
	}
	p, ok, err := instance.Repository(top)
	if err != nil {
		g.redirects = append(g.redirects, err)
	}
	if !ok {
		return
	}
	for _, e := range projectfiles.Entries {
		if path := filepath.Join(top, e.Name); e.Protection == projectfiles.StandIn && paths.Exists(path) {
			g.add(mount.Guard{Path: path, Copy: e.Name == ".mcp.json", File: !standsInAsDir(e.Name), Why: e.Why + " (a nested repository)"})
		}
	}
	g.toolFiles(top, " (a nested repository)")
	g.repo(p.Checkout, p.GitDir, p.CommonDir)
}

// add records guard unless it lies outside every writable mount. Each
// directory between the mount and the guard is pinned; a missing one is
// guarded instead of the path below it, and a symlink anywhere on the way
// is reported, because the sandbox could replace it.
func (g *guardProbe) add(guard mount.Guard) {
	root := ""
	for _, r := range g.roots {
		if paths.Within(guard.Path, r) && guard.Path != r && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return
	}
	rel, _ := filepath.Rel(root, guard.Path)
	parts := strings.Split(rel, string(filepath.Separator))
	dir := root
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case err != nil || instance.IsStandIn(dir, fi):
			guard = mount.Guard{Path: dir, Why: guard.Why}
			g.record(guard)
			return
		case fi.Mode()&os.ModeSymlink != 0:
			g.symlinks = append(g.symlinks, dir)
			return
		case !g.seen[dir]:
			g.seen[dir] = true
			g.pins = append(g.pins, dir)
		}
	}
	fi, err := os.Lstat(guard.Path)
	switch {
	case err == nil && instance.IsStandIn(guard.Path, fi):
		// Another session's stand-in: this one's mount must fit it.
		guard.Exists = false
		guard.File = !fi.IsDir() && !guard.NoOp && !guard.FileStandIn
	case err != nil:
		guard.Exists = false
	case fi.Mode()&os.ModeSymlink != 0:
		g.symlinks = append(g.symlinks, guard.Path)
		return
	default:
		guard.Exists = true
		guard.Copy = guard.Copy && fi.Mode().IsRegular()
		guard.ID = untrusted.IDOf(fi)
		if guard.GitConfig {
			// One git cannot read, or that is no file of at most 1 MiB,
			// is an empty copy: nothing of it is shown.
			b, _ := untrusted.ReadFile(filepath.Dir(guard.Path), filepath.Base(guard.Path), 1<<20)
			guard.Content = string(gitconfig.RepositoryCopy(b))
		}
	}
	fresh := !g.seen[guard.Path]
	g.record(guard)
	// What the user's home and PATH lead to is followed by the probe,
	// which knows which links the host reads.
	if fresh && guard.Exists && guard.From == "" && fi.IsDir() {
		g.linksIn(guard.Path, linkDepth)
	}
}

func (g *guardProbe) record(guard mount.Guard) {
	if !g.seen[guard.Path] {
		g.seen[guard.Path] = true
		g.guards = append(g.guards, guard)
	}
}

// MakeDir makes path an empty directory of mode 0755 where nothing is,
// through its directory opened once with no link on its path (a sandbox
// that writes there may have put one), and fails unless a directory
// stands there after.
func MakeDir(path string) error {
	parent, err := untrusted.OpenDir("/", strings.TrimPrefix(filepath.Dir(path), "/"))
	if err != nil {
		return fmt.Errorf("cannot make %s: %w", path, err)
	}
	defer parent.Close()
	at, name := int(parent.Fd()), filepath.Base(path)
	if err := unix.Mkdirat(at, name, 0o755); err != nil && err != unix.EEXIST {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(at, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("cannot make %s: something that is no directory stands there (did a sandbox put it there?)", path)
	}
	return nil
}

// KeepWorktrees makes the keeper (instance.WorktreesKeeper) in dir, a
// repository's worktrees folder, through dir opened once with no link on
// its path, unless it is there. The launch records it with its stand-ins
// first.
func KeepWorktrees(dir string) error {
	d, err := untrusted.OpenDir("/", strings.TrimPrefix(dir, "/"))
	if err != nil {
		return fmt.Errorf("cannot keep %s: %w", dir, err)
	}
	defer d.Close()
	err = unix.Mkdirat(int(d.Fd()), instance.WorktreesKeeper, 0o755)
	if err != nil && err != unix.EEXIST {
		return &fs.PathError{Op: "mkdir", Path: filepath.Join(dir, instance.WorktreesKeeper), Err: err}
	}
	made := err == nil
	keeper, err := untrusted.OpenDir(untrusted.FDPath(d), instance.WorktreesKeeper)
	if err != nil {
		return fmt.Errorf("cannot keep %s: something that is no directory stands at %s (did a sandbox put it there?)", dir, instance.WorktreesKeeper)
	}
	defer keeper.Close()
	fd, err := unix.Openat(int(keeper.Fd()), "locked", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err == unix.EEXIST {
		var st unix.Stat_t
		if err := unix.Fstatat(int(keeper.Fd()), "locked", &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return fmt.Errorf("cannot keep %s: something that is no file stands at %s/locked (did a sandbox put it there?)", dir, instance.WorktreesKeeper)
		}
		return nil
	}
	if err != nil {
		return &fs.PathError{Op: "create", Path: filepath.Join(dir, instance.WorktreesKeeper, "locked"), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, instance.WorktreesKeeper, "locked"))
	_, err = f.WriteString(instance.KeeperLock)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	// A keeper made half (a full disk) is no one's: the cleanup, which
	// knows a keeper by its lock's words, would take it for a session's.
	if err != nil {
		unix.Unlinkat(int(keeper.Fd()), "locked", 0)
		if made {
			unix.Unlinkat(int(d.Fd()), instance.WorktreesKeeper, unix.AT_REMOVEDIR)
		}
	}
	return err
}

// CreatePlaceholder makes the stand-in m mounts over, where nothing
// exists: an empty read-only directory (instance.StandInDirMode), a
// socket (bound to nothing: no tool reads it as a file, as the host's
// would an empty one; an empty mode-000 file where the filesystem has no
// sockets), or a no-op file, which appears whole (git on the host may read
// it at any moment). It fails with os.ErrExist when something is already
// there.
//
// The stand-in's directory may be one a sandbox writes (an enclosing
// project's, or this one's when the watcher makes a stand-in again),
// which can replace it, or one above it, with a link to a directory of
// the user's between the probe's look and the creation: the directory is
// opened once with no link anywhere on its path, and everything is made
// through that descriptor.
func CreatePlaceholder(m mount.Mount) error {
	dir, name := filepath.Dir(m.Dest), filepath.Base(m.Dest)
	parent, err := untrusted.OpenDir("/", strings.TrimPrefix(dir, "/"))
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return fmt.Errorf("cannot make the stand-in %s: a link or a file stands on the way to its directory (did a sandbox replace a directory there?)", m.Dest)
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	at := int(parent.Fd())
	switch m.Kind {
	case mount.Tmpfs:
		// Made beside it with its mode, then renamed into place: a launch
		// of another session probing at that moment sees a stand-in or
		// nothing, never a directory it would take for the user's. The
		// mode is set through a descriptor of the new directory, and what
		// is renamed into place must be it.
		tmp, err := tempName(func(tmp string) error { return unix.Mkdirat(at, tmp, 0o700) })
		if err != nil {
			return &fs.PathError{Op: "mkdir", Path: dir, Err: err}
		}
		fd, err := unix.Openat(at, tmp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Unlinkat(at, tmp, unix.AT_REMOVEDIR)
			return &fs.PathError{Op: "open", Path: filepath.Join(dir, tmp), Err: err}
		}
		made := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
		defer made.Close()
		if err := made.Chmod(instance.StandInDirMode); err != nil {
			unix.Unlinkat(at, tmp, unix.AT_REMOVEDIR)
			return err
		}
		if err := unix.Renameat2(at, tmp, at, name, unix.RENAME_NOREPLACE); err != nil {
			unix.Unlinkat(at, tmp, unix.AT_REMOVEDIR)
			if err == unix.EEXIST {
				return os.ErrExist
			}
			return &fs.PathError{Op: "rename", Path: m.Dest, Err: err}
		}
		var st, there unix.Stat_t
		merr := unix.Fstat(fd, &st)
		terr := unix.Fstatat(at, name, &there, unix.AT_SYMLINK_NOFOLLOW)
		if merr != nil || terr != nil || st.Dev != there.Dev || st.Ino != there.Ino {
			return fmt.Errorf("the stand-in %s was replaced while it was made (by a sandbox that can write beside it?)", m.Dest)
		}
		return nil
	case mount.RoBind:
		var fd int
		tmp, err := tempName(func(tmp string) (err error) {
			fd, err = unix.Openat(at, tmp, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
			return err
		})
		if err != nil {
			return &fs.PathError{Op: "create", Path: dir, Err: err}
		}
		defer unix.Unlinkat(at, tmp, 0)
		f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
		_, err = f.Write(instance.StandInContent(m.Dest))
		if err == nil {
			err = f.Chmod(instance.StandInMode)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := unix.Linkat(at, tmp, at, name, 0); err != nil {
			if err == unix.EEXIST {
				return os.ErrExist
			}
			return &fs.PathError{Op: "link", Path: m.Dest, Err: err}
		}
		return nil
	}
	err = unix.Mknodat(at, name, unix.S_IFSOCK, 0)
	if err == unix.EEXIST {
		return os.ErrExist
	}
	if err == nil {
		return nil
	}
	fd, err := unix.Openat(at, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.EEXIST {
		return os.ErrExist
	}
	if err != nil {
		return &fs.PathError{Op: "create", Path: m.Dest, Err: err}
	}
	return unix.Close(fd)
}

// tempName makes a new entry by a name of its own beside a stand-in
// (create fails with EEXIST when the name is taken), and returns the name.
func tempName(create func(name string) error) (string, error) {
	for {
		var b [6]byte
		rand.Read(b[:])
		name := ".claudebox-stand-in-" + hex.EncodeToString(b[:])
		if err := create(name); err != unix.EEXIST {
			return name, err
		}
	}
}

// submodulePaths lists the checkout-relative paths of a .gitmodules file
// (submodule.<name>.path).
func (g *guardProbe) submodulePaths(gitmodules string) []string {
	var paths []string
	for _, e := range g.config(gitmodules) {
		name, ok := strings.CutPrefix(e.Key, "submodule.")
		if ok && !e.NoValue && strings.HasSuffix(name, ".path") && len(name) > len(".path") {
			if p := filepath.Clean(e.Value); filepath.IsLocal(p) {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// config reads a git config file as git does. One git would refuse, or
// that cannot be read safely, refuses the launch: what it sets is unknown.
// A stand-in a launch made (a killed session's) sets nothing.
func (g *guardProbe) config(path string) []gitconfig.Entry {
	if instance.IsPlaceholder(path) {
		return nil
	}
	entries, err := gitconfig.Read(path)
	// A launch of this project beside may have made its stand-in since the
	// look above (a socket of mode 000, which refuses the open).
	if err != nil && !instance.IsPlaceholder(path) {
		g.redirects = append(g.redirects, err)
	}
	return entries
}

// maxIncludeDepth is how deep git follows includes before it refuses.
const maxIncludeDepth = 10

// includedHooksPaths guards the files config includes, at any depth, and
// returns every core.hooksPath value of config and of them. Git resolves a
// relative include against the including file's directory; its condition
// (includeIf) is not evaluated: each is followed.
func (g *guardProbe) includedHooksPaths(config string, seen map[string]bool, depth int) []string {
	if seen[config] || depth > maxIncludeDepth {
		return nil
	}
	seen[config] = true
	entries := g.config(config)
	hooksPaths := gitconfig.Values(entries, "core.hookspath")
	for _, e := range entries {
		if gitconfig.RunsCommand(e.Key) && !e.NoValue {
			if g.gitCommands == nil {
				g.gitCommands = map[string][]string{}
			}
			g.gitCommands[config] = append(g.gitCommands[config], e.Value)
		}
	}
	for _, inc := range gitconfig.Includes(entries) {
		if inc = paths.ExpandHome(inc, g.home); !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(config), inc)
		}
		inc = filepath.Clean(inc)
		g.add(mount.Guard{Path: inc, NoOp: true, Why: "git configuration included by the repository's"})
		// The user's own included files may be links (home-manager, stow);
		// one in the project is refused as a symlink by add.
		if real, err := filepath.EvalSymlinks(inc); err == nil {
			hooksPaths = append(hooksPaths, g.includedHooksPaths(real, seen, depth+1)...)
		}
	}
	return hooksPaths
}

// maxCommandFiles bounds the files git's commands are taken to run in one
// work tree.
const maxCommandFiles = 64

// commandFiles guards each file in the work tree top that one of commands
// names by its path, relative to top, where git runs it.
func (g *guardProbe) commandFiles(top string, commands []string) {
	n := 0
	for _, command := range commands {
		for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n\"'!;&|()<>`=", r) }) {
			if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "$") {
				continue
			}
			p := filepath.Clean(paths.ExpandHome(w, g.home))
			if !filepath.IsAbs(p) {
				p = filepath.Join(top, p)
			}
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || !paths.Within(p, top) || p == top {
				continue
			}
			if n++; n > maxCommandFiles {
				return
			}
			g.add(mount.Guard{Path: p, Why: "a script git's configuration runs (a filter, a diff driver, an alias)"})
		}
	}
}

// submoduleNames lists the names of a .gitmodules file's submodules, and
// their paths, which are their names unless set otherwise.
func submoduleNames(gitmodules string) []string {
	var names []string
	// submodulePaths reports a file git refuses.
	entries, _ := gitconfig.Read(gitmodules)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Key, "submodule.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue
		}
		candidates := []string{rest[:i]}
		if rest[i+1:] == "path" && !e.NoValue {
			candidates = append(candidates, e.Value)
		}
		for _, n := range candidates {
			if n = filepath.Clean(n); filepath.IsLocal(n) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

func isFile(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
