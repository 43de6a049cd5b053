// Package projectfiles is the one registry of what the host's agents,
// editors and tools obey in a project: the names whose content the host
// runs or obeys where they stand. The guards (package guard), the exit
// audit (package audit), the sandbox's git wrapper (through the guards)
// and --check all read this list, so a new agent or editor is one line.
package projectfiles

import (
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Protection is how a launch protects an entry.
type Protection int

const (
	// StandIn: read-only where it exists; where it is missing, a stand-in
	// that nothing can be written in takes its place.
	StandIn Protection = iota
	// WhereExists: read-only where it exists at a work tree's top (a
	// stand-in for a missing one would be in the way of the host's tool: a
	// mise.toml or .nvim.lua it cannot read is an error there); one the
	// session creates the exit audit names and moves aside.
	WhereExists
	// AtExit: not guarded (a session's ordinary work writes it, or it
	// lies anywhere in the tree); one the session made or changed the exit
	// audit names and moves aside.
	AtExit
)

// Entry is a name the host obeys, with who obeys it and what for.
type Entry struct {
	Name string
	// Prefix: Name is the start of the names the entry covers (a hook
	// manager's lefthook-local.yml); Suffix, their end (an editor's
	// app.code-workspace).
	Prefix, Suffix bool
	Protection     Protection
	// Tools obey it; Why is what they do with it (--dry-run shows it).
	Tools, Why string
}

// Entries are the registry. Not here: instruction files (AGENTS.md,
// CLAUDE.md, GEMINI.md, .cursorrules), which the agents read as project
// content and which run nothing; .gitattributes, which git reads at every
// level of the tree and which selects only the drivers the user's own
// configuration defines (review it with the diff).
var Entries = []Entry{
	{Name: ".gitmodules", Tools: "git", Why: "git submodule configuration"},
	{Name: ".gitconfig", Tools: "git", Why: "git configuration"},
	{Name: ".bashrc", Tools: "bash", Why: "shell startup file"},
	{Name: ".bash_profile", Tools: "bash", Why: "shell startup file"},
	{Name: ".zshrc", Tools: "zsh", Why: "shell startup file"},
	{Name: ".zprofile", Tools: "zsh", Why: "shell startup file"},
	{Name: ".profile", Tools: "sh", Why: "shell startup file"},
	{Name: ".ripgreprc", Tools: "ripgrep", Why: "ripgrep configuration"},
	{Name: ".envrc", Tools: "direnv", Why: "direnv runs it"},
	{Name: ".claudebox.env", Tools: "claudebox", Why: "claudebox passes what it names into the sandbox"},
	{Name: ".claudebox.toml", Tools: "claudebox", Why: "claudebox widens the sandbox by what it says"},
	{Name: ".pre-commit-config.yaml", Tools: "pre-commit", Why: "the pre-commit hook runs what it names"},
	{Name: ".mcp.json", Tools: "Claude Code", Why: "MCP servers Claude Code starts"},
	{Name: ".vscode", Tools: "VS Code", Why: "editor tasks and settings"},
	{Name: ".idea", Tools: "JetBrains IDEs", Why: "editor run configurations"},
	{Name: ".claude", Tools: "Claude Code", Why: "Claude Code project settings, hooks, commands and agents"},
	{Name: ".codex", Tools: "Codex", Why: "Codex's project configuration: its MCP servers and hooks"},
	{Name: ".gemini", Tools: "Gemini CLI", Why: "Gemini CLI's project settings, MCP servers, commands and .env"},
	{Name: ".helix", Protection: WhereExists, Tools: "Helix", Why: "Helix's languages and their servers"},
	{Name: ".zed", Protection: WhereExists, Tools: "Zed", Why: "Zed's settings and tasks"},
	{Name: ".nvim.lua", Protection: WhereExists, Tools: "Neovim", Why: "Neovim's exrc"},
	{Name: ".nvimrc", Protection: WhereExists, Tools: "Neovim", Why: "Neovim's exrc"},
	{Name: ".exrc", Protection: WhereExists, Tools: "vi, Vim, Neovim", Why: "vi's, Vim's and Neovim's exrc"},
	{Name: ".vimrc", Protection: WhereExists, Tools: "Vim", Why: "Vim's exrc, read before .exrc"},
	{Name: "_vimrc", Protection: WhereExists, Tools: "Vim", Why: "Vim's exrc, read before .exrc"},
	{Name: ".gvimrc", Protection: WhereExists, Tools: "gvim", Why: "gvim's exrc"},
	{Name: "_gvimrc", Protection: WhereExists, Tools: "gvim", Why: "gvim's exrc"},
	{Name: ".dir-locals.el", Protection: WhereExists, Tools: "Emacs", Why: "Emacs' directory variables"},
	{Name: ".dir-locals-2.el", Protection: WhereExists, Tools: "Emacs", Why: "Emacs' directory variables"},
	{Name: "mise.", Prefix: true, Protection: WhereExists, Tools: "mise", Why: "mise's tasks, hooks and environment (mise.toml, mise.local.toml, mise.<env>.toml, mise.lock's download URLs)"},
	{Name: ".mise.", Prefix: true, Protection: WhereExists, Tools: "mise", Why: "mise's tasks, hooks and environment (.mise.toml, .mise.<env>.toml)"},
	{Name: ".mise", Protection: WhereExists, Tools: "mise", Why: "mise's tasks, hooks and environment"},
	{Name: "mise", Protection: WhereExists, Tools: "mise", Why: "mise's tasks, hooks and environment (mise/config.toml, .config/mise/config.toml and conf.d)"},
	{Name: ".tool-versions", Protection: WhereExists, Tools: "asdf, mise", Why: "the tool versions asdf and mise run"},
	{Name: ".python-version", Protection: WhereExists, Tools: "uv, pyenv", Why: "the Python uv and pyenv run, an interpreter's by its path"},
	{Name: ".ruby-version", Protection: WhereExists, Tools: "rbenv, chruby", Why: "the Ruby a version manager runs"},
	{Name: ".node-version", Protection: WhereExists, Tools: "fnm, nodenv", Why: "the Node.js a version manager runs"},
	{Name: ".nvmrc", Protection: WhereExists, Tools: "nvm, fnm", Why: "the Node.js nvm runs"},
	{Name: "rust-toolchain.toml", Protection: WhereExists, Tools: "rustup", Why: "the toolchain rustup runs for cargo and rustc, a directory's by its path"},
	{Name: "rust-toolchain", Protection: WhereExists, Tools: "rustup", Why: "the toolchain rustup runs for cargo and rustc, a directory's by its path"},
	{Name: ".cursor", Protection: WhereExists, Tools: "Cursor", Why: "Cursor's rules and MCP servers"},
	{Name: ".roo", Protection: WhereExists, Tools: "Roo Code", Why: "Roo Code's MCP servers and rules"},
	{Name: ".kilocode", Protection: WhereExists, Tools: "Kilo Code", Why: "Kilo Code's MCP servers and rules"},
	{Name: ".continue", Protection: WhereExists, Tools: "Continue", Why: "Continue's settings and MCP servers"},
	{Name: ".amazonq", Protection: WhereExists, Tools: "Amazon Q", Why: "Amazon Q's MCP servers and agents"},
	{Name: ".kiro", Protection: WhereExists, Tools: "Kiro", Why: "Kiro's hooks and MCP servers"},
	{Name: ".junie", Protection: WhereExists, Tools: "Junie", Why: "Junie's MCP servers"},
	{Name: ".windsurf", Protection: WhereExists, Tools: "Windsurf", Why: "Windsurf's rules and workflows"},
	{Name: ".aider.conf.yml", Protection: WhereExists, Tools: "aider", Why: "aider's lint and test commands"},
	{Name: "opencode.json", Protection: WhereExists, Tools: "opencode", Why: "opencode's MCP servers and commands"},
	{Name: ".opencode", Protection: WhereExists, Tools: "opencode", Why: "opencode's agents, commands and plugins"},
	{Name: "crush.json", Protection: WhereExists, Tools: "Crush", Why: "Crush's MCP and language servers"},
	{Name: ".crush.json", Protection: WhereExists, Tools: "Crush", Why: "Crush's MCP and language servers"},
	{Name: ".lfsconfig", Protection: WhereExists, Tools: "git-lfs", Why: "git-lfs's endpoints"},
	{Name: ".agents", Protection: WhereExists, Tools: "Antigravity, Codex", Why: "Antigravity's hooks (hooks.json) and MCP servers (mcp_config.json), its and Codex's skills"},
	{Name: "lefthook", Prefix: true, Protection: WhereExists, Tools: "lefthook", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".lefthook", Prefix: true, Protection: WhereExists, Tools: "lefthook", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".pre-commit-config.", Prefix: true, Protection: WhereExists, Tools: "pre-commit", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".simple-git-hooks", Prefix: true, Protection: WhereExists, Tools: "simple-git-hooks", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: "simple-git-hooks.", Prefix: true, Protection: WhereExists, Tools: "simple-git-hooks", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".lintstagedrc", Prefix: true, Protection: WhereExists, Tools: "lint-staged", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: "lint-staged.config", Prefix: true, Protection: WhereExists, Tools: "lint-staged", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".husky", Prefix: true, Protection: WhereExists, Tools: "husky", Why: "a hook manager's configuration, which the host's git commit runs"},
	{Name: ".githooks", Protection: AtExit, Tools: "git", Why: "hooks a repository's setup points core.hooksPath at"},
	{Name: ".devcontainer", Protection: AtExit, Tools: "VS Code, devcontainer CLI", Why: "dev container commands"},
	{Name: ".devcontainer.", Prefix: true, Protection: AtExit, Tools: "VS Code, devcontainer CLI", Why: "dev container commands"},
	{Name: "devcontainer.json", Protection: AtExit, Tools: "VS Code, devcontainer CLI", Why: "dev container commands"},
	{Name: ".envrc", Prefix: true, Protection: AtExit, Tools: "direnv", Why: "what an .envrc sources (source_env_if_exists .envrc.local)"},
	{Name: "compose.override.", Prefix: true, Protection: AtExit, Tools: "docker compose", Why: "what docker compose up merges into the project's services unasked (mounts, privileges, commands)"},
	{Name: "docker-compose.override.", Prefix: true, Protection: AtExit, Tools: "docker compose", Why: "what docker compose up merges into the project's services unasked (mounts, privileges, commands)"},
	{Name: ".direnv", Protection: AtExit, Tools: "direnv, nix-direnv", Why: "what direnv's layouts keep, and the dev shell nix-direnv caches and evaluates at every cd"},
	{Name: ".cargo", Protection: AtExit, Tools: "cargo", Why: "cargo's rustc wrapper, linker, runner and aliases, in the directory and below"},
	{Name: ".npmrc", Protection: AtExit, Tools: "npm", Why: "npm's scripts' shell, registry and node options"},
	{Name: ".yarnrc", Protection: AtExit, Tools: "yarn", Why: "yarn's path and registry"},
	{Name: ".yarnrc.yml", Protection: AtExit, Tools: "yarn", Why: "yarn's path, plugins and registry"},
	{Name: ".pnpmfile.cjs", Protection: AtExit, Tools: "pnpm", Why: "pnpm's hooks, which pnpm install runs"},
	{Name: ".pnpmfile.mjs", Protection: AtExit, Tools: "pnpm", Why: "pnpm's hooks, which pnpm install runs"},
	{Name: ".code-workspace", Suffix: true, Protection: AtExit, Tools: "VS Code", Why: "a workspace's tasks (run when it opens), launch configurations and settings; VS Code offers to open one it finds in the folder"},
	{Name: ".sublime-project", Suffix: true, Protection: AtExit, Tools: "Sublime Text", Why: "a project's build systems, which run commands"},
	{Name: "pip.conf", Protection: AtExit, Tools: "pip", Why: "pip's index and options, read from the active virtualenv's top"},
	{Name: "uv.toml", Protection: AtExit, Tools: "uv", Why: "uv's index, its Python downloads' mirror and its build settings"},
	{Name: "bunfig.toml", Protection: AtExit, Tools: "bun", Why: "bun's preloaded scripts and registry"},
	{Name: "go.work", Protection: AtExit, Tools: "go", Why: "the modules go builds in place of those go.mod requires (use, replace), kept out of git as a developer's own"},
	{Name: ".bsp", Protection: AtExit, Tools: "IntelliJ IDEA, Metals", Why: "the build server's command (argv) an IDE runs as it opens the project (sbt's, Mill's, Bazel's), kept out of git"},
	{Name: ".mvn", Protection: AtExit, Tools: "Maven", Why: "Maven's JVM options, arguments, extensions and its wrapper's download URL"},
	{Name: ".bundle", Protection: AtExit, Tools: "Bundler", Why: "Bundler's settings: the Gemfile it evaluates, where it installs, build flags"},
	{Name: ".pdm-python", Protection: AtExit, Tools: "PDM", Why: "the interpreter PDM runs, by its path"},
	{Name: ".irbrc", Protection: AtExit, Tools: "irb, rails console", Why: "Ruby irb runs it where it starts"},
	{Name: "irb.rc", Protection: AtExit, Tools: "irb, rails console", Why: "Ruby irb runs it where it starts, as .irbrc"},
	{Name: "_irbrc", Protection: AtExit, Tools: "irb, rails console", Why: "Ruby irb runs it where it starts, as .irbrc"},
	{Name: "$irbrc", Protection: AtExit, Tools: "irb, rails console", Why: "Ruby irb runs it where it starts, as .irbrc"},
	{Name: "irbrc", Protection: AtExit, Tools: "irb, rails console", Why: "Ruby irb runs .config/irb/irbrc where it starts, as .irbrc"},
	{Name: ".pryrc", Protection: AtExit, Tools: "pry", Why: "pry runs it where it starts"},
	{Name: ".Rprofile", Protection: AtExit, Tools: "R", Why: "R runs it where it starts (renv's activation)"},
	{Name: ".Renviron", Protection: AtExit, Tools: "R", Why: "R's environment where it starts (R_PROFILE_USER, R_LIBS)"},
	{Name: ".pdbrc", Protection: AtExit, Tools: "pdb, pytest --pdb", Why: "Python's debugger runs its lines where it starts (python -m pdb, breakpoint())"},
	{Name: ".iex.exs", Protection: AtExit, Tools: "IEx", Why: "Elixir's shell evaluates it where it starts (iex -S mix)"},
	{Name: ".ghci", Protection: AtExit, Tools: "GHCi", Why: "GHCi runs its commands where it starts (:! runs a shell's)"},
	{Name: ".perldb", Protection: AtExit, Tools: "perl -d", Why: "Perl's debugger runs it as Perl where it starts"},
	{Name: ".ocamlinit", Protection: AtExit, Tools: "ocaml, utop", Why: "OCaml's toplevel runs it where it starts"},
	{Name: ".octaverc", Protection: AtExit, Tools: "Octave", Why: "Octave runs it where it starts"},
	{Name: ".sbtrc", Protection: AtExit, Tools: "sbt", Why: "sbt runs its commands as it starts in the project"},
	{Name: ".rspec-local", Protection: AtExit, Tools: "RSpec", Why: "RSpec's options, read through ERB, which runs Ruby"},
	{Name: ".pylintrc", Protection: AtExit, Tools: "pylint, editors' pylint", Why: "pylint runs its init-hook as Python, where it starts and in the directories above"},
	{Name: "pylintrc", Protection: AtExit, Tools: "pylint, editors' pylint", Why: "pylint runs its init-hook as Python, where it starts and in the directories above"},
	{Name: "hgrc", Protection: AtExit, Tools: "hg", Why: "a Mercurial repository's configuration (.hg/hgrc): hooks and extensions hg runs at every command there, a prompt's too"},
	{Name: "hgrc-not-shared", Protection: AtExit, Tools: "hg", Why: "a Mercurial repository's configuration (.hg/hgrc-not-shared), read as .hg/hgrc"},
	{Name: "sharedpath", Protection: AtExit, Tools: "hg", Why: "the repository a Mercurial share reads (.hg/sharedpath), whose hgrc it obeys"},
}

// index is the registry by name: the entries by their names and by
// their names lower-cased (for a directory that folds case), and those
// matched by a name's start or end. It is made at the first lookup: not
// every claudebox process looks one up (the guard watcher and the
// sandbox's first process never do), and each ran its package
// initialisers at its start.
var index = sync.OnceValue(func() (x names) {
	x.byName, x.byFolded = map[string]int{}, map[string]int{}
	for i, e := range Entries {
		if e.Prefix {
			x.prefixes = append(x.prefixes, i)
			continue
		}
		if e.Suffix {
			x.suffixes = append(x.suffixes, i)
			continue
		}
		x.byName[e.Name] = i
		x.byFolded[strings.ToLower(e.Name)] = i
	}
	return x
})

// names are the entries' indexes in Entries by their names, by their
// names lower-cased, and those matched by a name's start or end.
type names struct {
	byName, byFolded   map[string]int
	prefixes, suffixes []int
}

// Lookup finds the entry that covers name. In a directory whose names
// fold case (fold: see FoldsCase), .CURSOR is the .cursor the host's
// Cursor opens, and matches as it does.
func Lookup(name string, fold bool) (Entry, bool) {
	x := index()
	if i, ok := x.byName[name]; ok {
		return Entries[i], true
	}
	if fold {
		name = strings.ToLower(name)
		if i, ok := x.byFolded[name]; ok {
			return Entries[i], true
		}
	}
	for _, i := range x.prefixes {
		if strings.HasPrefix(name, Entries[i].Name) {
			return Entries[i], true
		}
	}
	for _, i := range x.suffixes {
		if len(name) > len(Entries[i].Name) && strings.HasSuffix(name, Entries[i].Name) {
			return Entries[i], true
		}
	}
	return Entry{}, false
}

// Is says whether name is want as a directory compares names: the same,
// or, where it folds case, the same but for case.
func Is(name, want string, fold bool) bool {
	return name == want || fold && strings.EqualFold(name, want)
}

// Names are the registry's names (a prefix's start among them) protected
// as p.
func Names(p Protection) []string {
	var names []string
	for _, e := range Entries {
		if e.Protection == p {
			names = append(names, e.Name)
		}
	}
	return names
}

// foldingFilesystem says whether lookups ignore case on the filesystem of
// statfs magic magic: vfat (and msdos), exFAT and NTFS (the kernel's
// ntfs3). One through FUSE (ntfs-3g,
// exfat-fuse) has FUSE's magic and is not told apart from others.
func foldingFilesystem(magic int64) bool {
	switch magic {
	case unix.MSDOS_SUPER_MAGIC, unix.EXFAT_SUPER_MAGIC, ntfsMagic:
		return true
	}
	return false
}

const (
	ntfsMagic = 0x5346544e
	// casefoldFlag is FS_CASEFOLD_FL: ext4's, f2fs's and tmpfs's
	// attribute of a directory whose names fold case (chattr +F), which
	// its new subdirectories inherit.
	casefoldFlag = 0x40000000
)

// FoldsCase reports whether the directory open at fd compares names
// without regard to case: its filesystem does (vfat, exFAT, NTFS), or it
// has the casefold attribute.
func FoldsCase(fd int) bool {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) == nil && foldingFilesystem(int64(st.Type)) {
		return true
	}
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	return err == nil && flags&casefoldFlag != 0
}

// FoldsCaseAt is FoldsCase for the directory at path; false where it
// cannot be opened.
func FoldsCaseAt(path string) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return FoldsCase(fd)
}
