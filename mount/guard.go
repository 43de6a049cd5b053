package mount

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/instance"
)

// Guard is a path inside a writable mount that something on the host
// executes or obeys (git hooks and config, shell and editor settings,
// Claude Code's project settings), so the sandbox must not change it.
type Guard struct {
	Path string
	// Exists says the path is a file or directory on the host. A
	// placeholder left by an earlier session counts as missing.
	Exists bool
	// Copy marks a file Claude Code itself saves: the sandbox gets a private
	// writable copy, so the save works and the host's file stays as it is.
	Copy bool
	// FileStandIn: when missing, an empty read-only file stands in (git reads
	// these paths as files). Otherwise a private empty directory does, which
	// git ignores and where creating the file fails.
	FileStandIn bool
	Why         string
}

func (g Guard) Mount() Mount {
	m := Mount{Src: g.Path, Dest: g.Path, Why: g.Why}
	switch {
	case g.Exists && g.Copy:
		m.Kind, m.Why = BindData, g.Why+"; the sandbox saves a private copy"
	case g.Exists:
		m.Kind, m.Why = RoBind, g.Why+": read-only"
	case g.FileStandIn:
		m.Kind, m.Src, m.Placeholder, m.Why = RoBindData, "", true, g.Why+": absent, an empty read-only file stands in"
		if g.Copy {
			m.Kind, m.Why = BindData, g.Why+": absent, the sandbox saves a private copy"
		}
	default:
		m.Kind, m.Src, m.Placeholder, m.Why = Tmpfs, "", true, g.Why+": absent, a private empty directory stands in"
	}
	return m
}

// workTreeGuards are the working-tree paths that tools on the host run or
// obey: the sandbox runtime's mandatory list, plus .envrc (direnv runs it)
// and .pre-commit-config.yaml (the pre-commit hook runs what it names).
var workTreeGuards = []struct{ name, why string }{
	{".gitmodules", "git submodule configuration"},
	{".gitconfig", "git configuration"},
	{".bashrc", "shell startup file"},
	{".bash_profile", "shell startup file"},
	{".zshrc", "shell startup file"},
	{".zprofile", "shell startup file"},
	{".profile", "shell startup file"},
	{".ripgreprc", "ripgrep configuration"},
	{".envrc", "direnv runs it"},
	{ProjectEnvFile, "claudebox passes what it names into the sandbox"},
	{ProjectConfigFile, "claudebox widens the sandbox by what it says"},
	{".pre-commit-config.yaml", "the pre-commit hook runs what it names"},
	{".mcp.json", "MCP servers Claude Code starts"},
	{".vscode", "editor tasks and settings"},
	{".idea", "editor run configurations"},
	{".claude", "Claude Code project settings, hooks, commands and agents"},
}

// claudeProjectCopies are the files in a project's .claude that Claude Code
// saves (permission rules the user approves).
var claudeProjectCopies = []string{"settings.json", "settings.local.json"}

// ClaudeDirCopies are the files in ~/.claude that Claude Code saves (/config,
// permission rules, /memory); the rest of ~/.claude is read-only inside.
var ClaudeDirCopies = []string{"settings.json", "settings.local.json", "CLAUDE.md"}

// guardProbe collects the guards of a project, the directories to pin, and
// the protected paths that are symlinks, which no mount can protect.
type guardProbe struct {
	home     string
	roots    []string // the writable mounts
	seen     map[string]bool
	guards   []Guard
	pins     []string
	symlinks []string
}

// probeGuards finds what needs protecting in the project's writable mounts.
func probeGuards(home string, project instance.Project) (guards []Guard, pins, symlinks []string) {
	g := &guardProbe{home: home, roots: append([]string{project.Checkout}, project.GitDirs...), seen: map[string]bool{}}
	for _, w := range workTreeGuards {
		path := filepath.Join(project.Checkout, w.name)
		g.add(Guard{Path: path, Copy: w.name == ".mcp.json", Why: w.why})
		if w.name == ".claude" && isDir(path) {
			for _, f := range claudeProjectCopies {
				g.add(Guard{Path: filepath.Join(path, f), Copy: true, FileStandIn: true, Why: "Claude Code project settings"})
			}
		}
	}
	if project.CommonDir != "" {
		g.git(project)
	} else {
		// A repository the sandbox creates here would bring config and hooks
		// that git on the host runs.
		g.add(Guard{Path: filepath.Join(project.Checkout, ".git"), Why: "a new repository's config and hooks"})
	}
	return g.guards, g.pins, g.symlinks
}

func (g *guardProbe) git(project instance.Project) {
	common := project.CommonDir
	g.add(Guard{Path: filepath.Join(common, "config"), FileStandIn: true, Why: "git configuration (fsmonitor, hooksPath, aliases run commands)"})
	g.add(Guard{Path: filepath.Join(common, "hooks"), Why: "git hooks"})
	core := instance.GitConfig(filepath.Join(common, "config"), "core")
	hooksPath := core["hookspath"]
	if hooksPath == "" {
		for _, f := range []string{filepath.Join(g.home, ".gitconfig"), filepath.Join(g.home, ".config", "git", "config")} {
			if hp := instance.GitConfig(f, "core")["hookspath"]; hp != "" {
				hooksPath = hp
			}
		}
	}
	if hooksPath != "" {
		if hooksPath = instance.ExpandHome(hooksPath, g.home); !filepath.IsAbs(hooksPath) {
			hooksPath = filepath.Join(project.Checkout, hooksPath)
		}
		g.add(Guard{Path: filepath.Clean(hooksPath), Why: "git hooks (core.hooksPath)"})
	}
	// Files the repository's config includes are config too; git resolves a
	// relative one against the config file's directory.
	for _, inc := range instance.GitIncludes(filepath.Join(common, "config")) {
		if inc = instance.ExpandHome(inc, g.home); !filepath.IsAbs(inc) {
			inc = filepath.Join(common, inc)
		}
		g.add(Guard{Path: filepath.Clean(inc), FileStandIn: true, Why: "git configuration included by the repository's"})
	}
	// Every linked worktree's pointer to the common dir, and its own config.
	entries, _ := os.ReadDir(filepath.Join(common, "worktrees"))
	for _, e := range entries {
		dir := filepath.Join(common, "worktrees", e.Name())
		g.add(Guard{Path: filepath.Join(dir, "commondir"), FileStandIn: true, Why: "a worktree's pointer to the repository"})
		g.add(Guard{Path: filepath.Join(dir, "config.worktree"), FileStandIn: true, Why: "a worktree's git configuration"})
	}
	if dotgit := filepath.Join(project.Checkout, ".git"); isFile(dotgit) {
		g.add(Guard{Path: dotgit, FileStandIn: true, Why: "the checkout's pointer to its git directory"})
	}
	// Submodules: host git runs inside them on its own (git status), with
	// their config and hooks.
	for _, p := range submodulePaths(filepath.Join(project.Checkout, ".gitmodules")) {
		dotgit := filepath.Join(project.Checkout, p, ".git")
		if isFile(dotgit) {
			g.add(Guard{Path: dotgit, FileStandIn: true, Why: "a submodule's pointer to its git directory"})
		}
	}
	g.submoduleGitDirs(filepath.Join(common, "modules"))
}

// submoduleGitDirs guards the config and hooks of each submodule git dir
// under dir, at any depth (names may contain slashes, and submodules nest).
func (g *guardProbe) submoduleGitDirs(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !instance.Exists(filepath.Join(path, "HEAD")) {
			g.submoduleGitDirs(path)
			continue
		}
		g.add(Guard{Path: filepath.Join(path, "config"), FileStandIn: true, Why: "a submodule's git configuration"})
		g.add(Guard{Path: filepath.Join(path, "hooks"), Why: "a submodule's git hooks"})
		g.submoduleGitDirs(filepath.Join(path, "modules"))
	}
}

// add records guard unless it lies outside every writable mount. Each
// directory between the mount and the guard is pinned; a missing one is
// guarded instead of the path below it, and a symlink anywhere on the way
// is reported, because the sandbox could replace it.
func (g *guardProbe) add(guard Guard) {
	root := ""
	for _, r := range g.roots {
		if instance.Within(guard.Path, r) && guard.Path != r && len(r) > len(root) {
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
		case err != nil || isPlaceholder(fi):
			guard = Guard{Path: dir, Why: guard.Why}
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
	case err != nil || isPlaceholder(fi):
		guard.Exists = false
	case fi.Mode()&os.ModeSymlink != 0:
		g.symlinks = append(g.symlinks, guard.Path)
		return
	default:
		guard.Exists = true
		guard.Copy = guard.Copy && fi.Mode().IsRegular()
	}
	g.record(guard)
}

func (g *guardProbe) record(guard Guard) {
	if !g.seen[guard.Path] {
		g.seen[guard.Path] = true
		g.guards = append(g.guards, guard)
	}
}

// isPlaceholder reports whether path is a stand-in a launch created: mode
// 000, which nobody makes by hand, and for a file, empty. (A directory with
// mode 000 cannot be listed; removing it fails if it is not empty.)
func isPlaceholder(fi os.FileInfo) bool {
	return fi.Mode().Perm() == 0 && (fi.IsDir() || fi.Mode().IsRegular() && fi.Size() == 0)
}

// IsPlaceholder reports whether path is a stand-in left by a launch.
func IsPlaceholder(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && isPlaceholder(fi)
}

// submodulePaths lists the checkout-relative paths of a .gitmodules file.
func submodulePaths(gitmodules string) []string {
	var paths []string
	for _, e := range instance.GitEntries(gitmodules) {
		if e.Key == "path" && strings.HasPrefix(e.Section, "submodule ") {
			if p := filepath.Clean(e.Value); filepath.IsLocal(p) {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

func isFile(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
