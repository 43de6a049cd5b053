package mount

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/untrusted"
)

// The values the probe finds on the host, which Build reads and the plan
// carries: the host probe (package probe) fills them in through the guard,
// bind and toolchain packages, so that Build itself reads nothing.

// HostPath is a path that exists on the host; Link is its target when it
// is a symlink.
type HostPath struct {
	Path string
	Link string
	// Checked, for an entry of /etc, is the small regular file every user
	// may read that it is: the sandbox gets a copy of that file written
	// into its /etc rather than a bind (File). Zero for one bound.
	Checked untrusted.FileID
}

// HostEntry is a file or, when Dir, a directory of the host.
type HostEntry struct {
	Path string
	Dir  bool
}

// Host holds the facts about the host filesystem that the plan depends on,
// gathered once by probe.Host so that Build stays pure.
type Host struct {
	// System lists the existing system directories from SystemDirs.
	System []HostPath
	// NixVar says /nix/var exists, and NixProfiles that its profiles do
	// (where ~/.nix-profile and the users' profiles lead): of /nix/var
	// only the profiles are shown, not the Nix daemon's socket.
	NixVar, NixProfiles bool
	// UsrLocalEtc says /usr/local/etc is a directory of the host's (no
	// link on the way): hidden, but for the tools' settings' copies.
	UsrLocalEtc bool
	// UsrLocalHidden are the entries of /usr/local, what an administrator
	// installs by hand, that are not shown: of its PATH entries what is no
	// program or a script with a credential written in it, what lies at
	// its top beside the directories of what is installed, and of those
	// but an installed toolchain's, the git directories and the files
	// named as credentials are kept or with one written in them.
	UsrLocalHidden []HostEntry
	// Etc are the entries of EtcShown that exist on the host, a link as
	// it is: the sandbox's /etc holds them and nothing else. EtcLeftOut
	// names the rest of /etc's entries, for --dry-run.
	Etc        []HostPath
	EtcLeftOut []string
	// EtcDirCopies are the directories of EtcShown the sandbox gets as
	// private copies of what is known harmless in them (EtcClaude).
	EtcDirCopies []DirCopy
	// UsersOwn are the entries of Etc, or in them, that the user (its uid
	// or its groups) may read and not every user may: hidden, a directory
	// under an empty one, a file under an empty file.
	UsersOwn []HostEntry
	// ProjectHidden are the credential stores and the state directories
	// (their real paths: the home's links may lead into a dotfiles
	// repository) that lie in the project: hidden over its mount, a
	// directory under an empty one, a file under an empty file.
	ProjectHidden []HostEntry
	// ServerSockets are the sockets a server of the host's listened on
	// at the launch in the project or its git directories (a tmux -S
	// .run/tmux.sock, devenv's PostgreSQL in .devenv/state): hidden over
	// the project's mount under an empty file, unless the user lets
	// sockets in the project through (--with-project-sockets).
	ServerSockets []string
	// ResolvConf is the real path of /etc/resolv.conf when it lies outside
	// the system directories (systemd-resolved keeps it under /run).
	ResolvConf string
	// Own lays out claudebox's read-only mounts of host paths outside the
	// system directories: the user's git configuration, the PATH's
	// toolchains and the directory of a command installed outside the
	// system directories (e.g. under the hidden $HOME), split around the
	// secrets inside them (listed in Hidden).
	Own []Mount
	// Links are the symlinks to recreate so that the command's path and
	// the PATH entries resolve inside as on the host.
	Links []HostPath
	// Toolchains are the PATH entries under $HOME and what each needs;
	// PathProblems the entries under $HOME that cannot work inside.
	Toolchains   []Toolchain
	PathProblems []PathProblem
	// ClaudeEntries lists the real ~/.claude's entries shown read-only
	// inside: configuration (plugins, skills, agents, commands, hooks, user
	// scripts), not Claude Code's per-session state of other projects.
	ClaudeEntries []string
	// ClaudeHidden are the entries of ~/.claude that are neither Claude
	// Code's configuration, nor what the user's settings name, nor its
	// known state: not shown, and named.
	ClaudeHidden []string
	// ClaudeFrozen are the directories of ~/.claude whose entries are shown
	// one by one, as the launch found them, in a directory of the
	// sandbox's that stays read-only as the host's is.
	ClaudeFrozen []string
	// ClaudeLinks are the links among the entries of ClaudeFrozen, made
	// again as they are: what they lead to is not followed.
	ClaudeLinks []HostPath
	// Scripts are the scripts the user's hooks and status line run (in
	// ~/.claude or not), each a private copy of what the launch read and
	// judged: what the host writes into one during the session is not
	// shown.
	Scripts []Script
	// AppendPrompt is the file claude's own --append-system-prompt-file
	// names, as the launch read it: SANDBOX.md carries it, as the flag
	// passed twice keeps only its last file. Nil when not given or not
	// read (claude inside then says what the host's would).
	AppendPrompt *Prompt
	// ClaudeFlagFiles are the settings and MCP config files claude's own
	// --settings and --mcp-config name outside what the sandbox shows:
	// each a private copy at its place of what is known harmless.
	ClaudeFlagFiles []FlagFile
	// ClaudeDirCopies are the directories of files of ~/.claude (agents,
	// commands, …) shown as private copies of what the launch read: what
	// the host clones or writes there during the session is not shown.
	ClaudeDirCopies []DirCopy
	// ClaudeCopies lists the files in ~/.claude that Claude Code saves
	// (settings, CLAUDE.md) and that exist: the sandbox gets private copies.
	ClaudeCopies []Copy
	// Pins are existing directories between a writable mount and a guard:
	// each is mounted on itself so it cannot be renamed away, which would
	// take the guard's mount with it.
	Pins []string
	// Guards are the paths inside the writable mounts that the host
	// executes or obeys.
	Guards []Guard
	// Reflogs are the files of the project's git directories that record
	// how its refs moved and hold a credential in a URL there (git pull
	// https://user:TOKEN@host/repo writes its command, token and all, into
	// logs/HEAD and the branch's log): the sandbox sees each as a private
	// writable copy without it, which git inside appends to and the
	// session's end discards.
	Reflogs []Reflog
	// HooksHidden are the repositories' git hooks with a credential
	// written in them (a webhook's URL, a token), or in a folder of them
	// too large to read: the sandbox sees each empty.
	HooksHidden []GitEntry
	// GitNotOwn are the entries at the top of the project's git
	// directories that are not git's own (a credential helper's store, a
	// Git client's settings), and the legacy remote files with a URL's
	// credential in them: the sandbox sees each empty.
	GitNotOwn []GitEntry
	// GitDirCrowded is a git directory of the project, or its info,
	// holding more entries not git's own than GitNotOwn may show empty
	// ("" if none): the launch refuses.
	GitDirCrowded string
	// WorktreesCrowded is the repository's worktrees folder where it
	// holds more entries than the launch reads the reflogs of ("" if
	// not): the launch refuses.
	WorktreesCrowded string
	// CredentialsLeftOut names what the private copies of the user's git
	// configuration and of a plugin marketplace's files leave out, as it
	// may hold a credential ("NAME in FILE"), never its value.
	CredentialsLeftOut []string
	// KnownHosts is ~/.ssh/known_hosts when it exists.
	KnownHosts string
	// SSHFiles are ~/.ssh/config and the public keys in ~/.ssh, read-only
	// with --with-ssh: ssh inside reads its host aliases there, and git
	// signs with user.signingkey naming a .pub.
	SSHFiles []Mount
	// SSHLeftOut names what of ~/.ssh is not shown as it may hold a
	// credential, for --with-ssh's notice.
	SSHLeftOut []string
	// Symlinked lists guards (or directories on the way to one) that are
	// symlinks: the sandbox could replace the link itself, so the launch
	// refuses.
	Symlinked []string
	// Redirects are nested repositories whose .git file or commondir leads
	// elsewhere (instance.RedirectError): the launch refuses.
	Redirects []error
	// Unprotected is what the host obeys that no guard can protect.
	Unprotected []Unprotected
	// Unshown is what the user's Claude Code setup names (a local plugin
	// marketplace, a hook's script, a carried MCP server's program) that
	// is not shown inside; what is shown is in Own.
	Unshown []Unshown
	// HookOutputs are the entries of ~/.claude that the user's hooks or
	// status line write: not shown, so that the sandbox's hooks write
	// their own, lost at exit (a directory is there, empty).
	HookOutputs []HookOutput
	// ObeyedNames are the file names a host tool obeys in whichever
	// directory of the project it starts (.env, which the host's gemini
	// loads into its environment): the exit audit sets aside those the
	// session wrote, at any depth.
	ObeyedNames []string
	// Binds lays out the user's extra mounts, split where they contain a
	// secret, claudebox's state or another mount; Hidden lists the secrets
	// left out of them and of Own.
	Binds  []Mount
	Hidden []Hidden
}

// Script is a script the user's Claude Code setup runs, as the launch
// read it: Path where the sandbox sees it (mode 0555), Content what it
// holds, What what names it ("a Stop hook's script, named in
// ~/.claude/settings.json").
type Script struct {
	Path, Content, What string
}

// FlagFile is a file claude's own Flag (--settings, --mcp-config) names,
// of which the sandbox gets a private copy.
type FlagFile struct {
	Flag string
	Copy
}

// DirCopy is a directory the sandbox gets a private copy of, as the
// launch read it: Path where the sandbox sees it, and its entries.
type DirCopy struct {
	Path    string
	Entries []DirCopyEntry
}

// DirCopyEntry is one entry of a DirCopy: Rel its path in the directory,
// a directory, a link (Link, made again as it is) or a file (Content,
// Executable).
type DirCopyEntry struct {
	Rel, Link, Content string
	Dir, Executable    bool
}

// GitEntry is an entry of a git directory shown empty: a file, or a
// directory (Dir) as a tmpfs.
type GitEntry struct {
	Path string
	Dir  bool
}

// Reflog is a reflog's private copy: Path the file, Content what it
// holds without the credentials in its messages; or, Dir, a folder of
// them shown empty.
type Reflog struct {
	Path, Content string
	Dir           bool
}

// Copy is a host file the sandbox gets a private copy of: Path where the
// sandbox sees it, Src the file the probe checked (its real path) and ID
// that file's identity, which the launch's read must find again (a link
// made in between is not followed, a file put in its place not read).
type Copy struct {
	Path, Src string
	ID        untrusted.FileID
}

// SystemDirs are bound read-only when they exist: the programs, libraries
// and configuration every tool needs, including Nix's store and NixOS's
// current system.
var SystemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/nix", "/run/current-system",
}

// Etc is the system's configuration, of which the sandbox is shown only
// EtcShown.
const Etc = "/etc"

// EtcShown are the entries of /etc (paths in it) the sandbox is shown
// where they exist, each what the tools inside read and known to hold no
// secret: the users' and groups' names, name resolution, the dynamic
// linker's cache, the time zone and locale, the certificates and TLS's
// settings, the shells' own startup files, the alternatives' links, the
// system's name and release, the agents' managed policies, Java's and
// PHP's settings (the JDK's conf leads there); a * stands for a version.
// Not fstab (a share's password), apt's or dnf's settings (a proxy's), systemd's units (a
// token in Environment=), a kubeconfig under rancher, the services'
// configuration, profile.d or environment.d (a proxy's password in a
// variable), nor what is not known: a host's own file of secrets in /etc
// is not shown whatever its mode. The settings files the tools read
// (gitconfig, npmrc, pip.conf, environment, nix/nix.conf) are private
// copies made beside (the tools' settings), not shown from here.
var EtcShown = slices.Concat([]string{
	// Users, groups, name resolution (glibc's NSS, getaddrinfo).
	"passwd", "group", "nsswitch.conf", "host.conf", "hosts", "hostname", "resolv.conf", "gai.conf",
	"services", "protocols", "networks", "rpc", "netconfig", "shells", "mtab",
	// The dynamic linker.
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload",
	// Time and locale.
	"localtime", "timezone", "zoneinfo", "locale.alias", "locale.conf",
	// Certificates and TLS's settings (OpenSSL, GnuTLS, Fedora's crypto
	// policies that OpenSSL's configuration includes, NSS-less Java); not
	// pki/tls/private, where Fedora's services keep their keys.
	"ssl/certs", "ssl/cert.pem", "ssl/ca-bundle.pem", "ssl/openssl.cnf", "ssl/ct_log_list.cnf",
	"ca-certificates", "ca-certificates.conf", "pki/tls/certs", "pki/tls/cert.pem", "pki/tls/openssl.cnf",
	"pki/tls/openssl.d", "pki/tls/ct_log_list.cnf", "pki/tls/fips_local.cnf", "pki/ca-trust", "pki/java",
	"crypto-policies", "gnutls",
	// The terminal; the shells' startup scripts are EtcScripts, joined at the end.
	"inputrc", "terminfo", "DIR_COLORS",
	// Programs' data: alternatives' links, MIME types, file(1)'s magic,
	// fonts (a headless browser's screenshots), git's system attributes,
	// ssh's client settings and the system's host keys.
	"alternatives", "mime.types", "magic", "magic.mime", "fonts", "gitattributes",
	"ssh/ssh_config", "ssh/ssh_config.d/*", "ssh/ssh_known_hosts", "ssh/ssh_known_hosts2",
	// The system's name and release (a tool picks its downloads by them).
	"os-release", "lsb-release", "debian_version", "redhat-release", "fedora-release", "system-release", "arch-release", "alpine-release",
	// The agents' managed policies, which must hold inside as outside: of
	// Claude Code's, its files (EtcRebuilt), its instructions and its
	// .claude (EtcClaude); of Codex's, its files; not what else an administrator keeps
	// beside them. Not Gemini CLI's: it obeys only what root owns, which
	// nothing is in the sandbox's user namespace.
	"claude-code/managed-settings.json", "claude-code/managed-settings.d/*", "claude-code/managed-mcp.json",
	"claude-code/CLAUDE.md", "claude-code/.claude",
	"codex/config.toml", "codex/managed_config.toml", "codex/requirements.toml",
	// Runtimes whose own directories lead here or that read their settings
	// here: the JDK's conf (Debian's, Arch's, Fedora's /etc/java), PHP's
	// command line's php.ini and extensions (Debian's per version, not
	// FPM's pools, which hold the sites' variables; Fedora's php.d: private
	// copies of their directives known harmless, probe's phpDirCopy;
	// Fedora's php.ini is a tool's settings file), the script
	// Maven starts with (not its settings.xml, which holds the servers'
	// passwords), man's paths, XML catalogs, ImageMagick's policy.
	"java-8-openjdk", "java-11-openjdk", "java-17-openjdk", "java-21-openjdk", "java-25-openjdk",
	"java", "java-openjdk", "java11-openjdk", "java17-openjdk", "java21-openjdk",
	"php/*/cli", "php/*/mods-available", "php.d",
	"maven/m2.conf", "manpath.config", "xml", "ImageMagick-6", "ImageMagick-7",
	// NixOS: /etc's entries are links into it, itself a link into the
	// store, which is shown whole; and the users' profiles, links into the
	// store too, where users.users.<name>.packages and home-manager's
	// module put the user's programs (/etc/profiles/per-user/<name>/bin
	// is on their PATH).
	"static", "profiles",
}, EtcScripts)

// EtcClaude is the managed policy's .claude (the organization's skills,
// commands, agents, rules): an entry of EtcShown the sandbox gets only as
// a private copy of what Claude Code reads there and is known harmless, as
// ~/.claude's skills are shown (a skill's .env or token.json an
// administrator left there is not).
const EtcClaude = "claude-code/.claude"

// EtcRebuilt are the entries of EtcShown the sandbox gets only as private
// copies rebuilt of what is known harmless (claudesettings.CopyContent):
// Claude Code's managed settings and MCP servers, Codex's configuration
// and requirements (agent.SystemCopy), ssh's (probe.SystemSSHConfig),
// where an organization writes what the user's own settings hold (a token
// in env, a server's bearer token, a ProxyCommand's).
// One that cannot be copied (not a plain file every user may read, over
// the size of a copy) is not shown.
var EtcRebuilt = []string{
	"claude-code/managed-settings.json", "claude-code/managed-settings.d/*", "claude-code/managed-mcp.json",
	"codex/config.toml", "codex/managed_config.toml", "codex/requirements.toml",
	"ssh/ssh_config", "ssh/ssh_config.d/*",
}

// EtcScripts are the entries of EtcShown that are the shells' startup
// scripts, where an administrator exports for every user what the
// machine's tools need (a proxy's address, password and all; a registry's
// token): the sandbox gets each only as a copy of a file with no
// credential written in it, judged as a hook's script is. One that cannot
// be copied, or judged, is not shown.
var EtcScripts = []string{"profile", "bash.bashrc", "bashrc", "zshenv", "zshrc", "zprofile", "zlogin", "zlogout", "zsh/*"}

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
	// ID is the file the probe saw, which the copy must read.
	Copy bool
	ID   untrusted.FileID
	// FileStandIn: when missing, a private empty file stands in, which
	// Claude Code saves into. Without it or NoOp, a private empty directory
	// does, where creating the file fails.
	FileStandIn bool
	// File: the path is a file where it exists (.envrc, .gitmodules,
	// .mcp.json). When missing, a socket stands in on the host, which
	// git's status, clean, stash and add pass over (they list a directory
	// by its entries' types, and skip a socket), with a read-only file
	// bound over it inside that its reader takes for nothing (an empty
	// .gitmodules, an .mcp.json with no servers). Without it, NoOp or
	// FileStandIn, a missing path stands in as a directory.
	File bool
	// NoOp: when missing, a read-only file whose content git reads as
	// nothing stands in, on the host as well as inside. Git reads these
	// paths whenever they exist, so an unreadable stand-in would make every
	// host git command fail while a session runs.
	NoOp bool
	// Saved names the files in a missing directory that Claude Code saves
	// (a project's .claude/settings.local.json): private empty copies of
	// them stand in its stand-in, which is not writable, so the saves work
	// and nothing of them is on the host.
	Saved []string
	// GitConfig: a repository's own git configuration (its config, a
	// worktree's config.worktree), where users keep credentials (git clone
	// https://oauth2:TOKEN@… keeps the token in the remote's URL). Where it
	// exists the sandbox sees Content instead, a private read-only copy of
	// what git needs (gitconfig.RepositoryCopy of what the probe read),
	// which the guard watcher makes again from each new file the host
	// writes there.
	GitConfig bool
	Content   string
	// From is how the host reaches a path outside the project's own list
	// (~/.bashrc, core.excludesFile in ~/.gitconfig, your PATH); "" for
	// the project's own.
	From string
	// MakeDir: when missing, the launch makes it an empty directory of
	// the user's, kept (git makes .git/worktrees so at its first worktree,
	// and the host's git worktree add writes there while a session runs,
	// which a stand-in would refuse), bound read-only.
	MakeDir bool
	// Private: the sandbox sees an empty directory of its own in its
	// place, writable, lost at exit (the project's repository's
	// .git/worktrees, where git inside records the worktrees Claude Code
	// makes, which no host git reads; the folder Claude Code saves its
	// settings through in an existing .claude).
	Private bool
	// Writable are directories in an existing directory guarded that
	// stay writable (a linked worktree's own in .git/worktrees), bound
	// again after it.
	Writable []string
	// Why is what the host does with the path, for --dry-run.
	Why string
}

// Mount is the mount that protects the guard, as its state calls for.
func (g Guard) Mount() Mount {
	m := Mount{Src: g.Path, Dest: g.Path, Why: g.Why, Role: Protection}
	switch {
	case g.Exists && g.GitConfig:
		m.Kind, m.Src, m.Content = RoBindData, "", g.Content
		m.Why = g.Why + ": " + GitConfigCopy
	case g.Exists && g.Copy:
		m.Kind, m.Checked, m.Why = BindData, g.ID, g.Why+"; the sandbox saves a private copy"
	case g.Exists:
		m.Kind, m.Why = RoBind, g.Why+": read-only"
	case g.MakeDir:
		m.Kind, m.made, m.Why = RoBind, true, g.Why+": absent, an empty directory is made, read-only"
	case g.NoOp:
		m.Kind, m.placeholder, m.Why = RoBind, true, g.Why+": absent, a file git reads as nothing stands in, read-only"
	case g.FileStandIn:
		m.Kind, m.Src, m.placeholder, m.Why = BindData, "", true, g.Why+": absent, the sandbox saves a private copy"
	case g.File:
		m.Kind, m.Src, m.Content, m.placeholder, m.ownText = RoBindData, "", EmptyContent(g.Path), true, true
		m.Why = g.Why + ": absent, a read-only file that says nothing stands in (a socket on the host, which git passes over)"
	default:
		m.Kind, m.Src, m.placeholder, m.Why = Tmpfs, "", true, g.Why+": absent, a private empty read-only directory stands in"
	}
	if g.Private {
		// Where nothing is on the host, the stand-in there is the mount
		// point alone: the sandbox's own directory over it is writable.
		m.Kind, m.Src, m.ownerOnly, m.Why = Tmpfs, "", m.placeholder, g.Why+": a private empty directory of the session's stands in, writable, lost at exit"
	}
	return m
}

// GitConfigCopy says what the sandbox sees of a repository's own git
// configuration.
const GitConfigCopy = "a private read-only copy of what git needs to work here (the repository's format and extensions, remotes' URLs without their user, password or query, branches' upstreams, submodules, your name): no include, credential helper, header, URL rewrite, proxy, alias or command"

// EmptyContent is what a file stand-in holds inside: what the file's
// reader takes for nothing. Claude Code reports an .mcp.json without
// mcpServers as an error.
func EmptyContent(path string) string {
	if filepath.Base(path) == ".mcp.json" {
		return "{\"mcpServers\":{}}\n"
	}
	return ""
}

// GitOperations are the directories in a worktree's git directory that hold
// an operation in progress, whose todo runs commands.
var GitOperations = []string{"rebase-merge", "rebase-apply", "sequencer"}

// GitOperation reports whether a guard is git's state of a rebase, am,
// cherry-pick or revert.
func (g Guard) GitOperation() bool {
	return slices.Contains(GitOperations, filepath.Base(g.Path)) && g.From == ""
}

// BindSpec is an extra mount the user asked for with --bind or --ro-bind,
// or with the same keys in a config file.
type BindSpec struct {
	// Src is the host path, symlinks resolved, so that what is checked is
	// what bwrap mounts; Asked is the path as asked (~ and relative paths
	// expanded), whose links bind.Check judges.
	Src   string
	Asked string
	// Dest is where it appears inside.
	Dest     string
	Writable bool
	// From says where it was asked for: a flag or a file's path.
	From string
}

// Flag is the spec as the flag that asks for it.
func (b BindSpec) Flag() string {
	f := "--ro-bind "
	if b.Writable {
		f = "--bind "
	}
	if b.Src == b.Dest {
		return f + b.Src
	}
	return f + b.Src + ":" + b.Dest
}

// Hidden is a secret that a bind contains and leaves out. Own says the
// bind is claudebox's own read-only mount (git configuration, a toolchain),
// not the user's.
type Hidden struct {
	Path string
	By   BindSpec
	Own  bool
}

// String describes the hidden secret for --dry-run.
func (h Hidden) String() string {
	if h.Own {
		return fmt.Sprintf("%s is hidden under claudebox's read-only mount of %s: bind it yourself to show it", h.Path, h.By.Dest)
	}
	return fmt.Sprintf("%s is hidden under %s: bind it itself to show it", h.Path, h.By.Flag())
}

// Toolchain is a PATH entry under $HOME and what its programs need to run,
// all shown read-only: the host runs these programs too.
type Toolchain struct {
	// Entry is the directory as PATH names it.
	Entry string
	// Roots are real paths, each with the reason it is shown.
	Roots []Root
}

// Root is a directory (or file) a toolchain needs.
type Root struct {
	Path string
	Why  string
}

// PathProblem is a PATH entry under $HOME that does not work inside.
type PathProblem struct {
	Entry, Reason string
}

// HookOutput is an entry of ~/.claude a hook writes in.
type HookOutput struct {
	Path string
	Dir  bool
}

// Prompt is a prompt file the user named, and what it holds.
type Prompt struct{ Path, Text string }

// Unshown is a path the user's Claude Code setup names that the sandbox
// does not show, what names it, and why.
type Unshown struct {
	Path, What, Reason string
}

func (u Unshown) String() string { return u.Path + " (" + u.What + "): " + u.Reason }

// Unprotected is what the host obeys (From: ~/.bashrc, your PATH) that no
// guard can protect, and why: the launch warns of it.
type Unprotected struct {
	From, Reason string
}
