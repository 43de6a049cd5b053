// Package probe reads the host once for a launch: the system directories,
// ~/.claude's entries, the tool settings shown read-only, the command's
// links, what the host obeys from the home and PATH, and (through the
// guard, bind and toolchain packages) the guards, the binds' layout and
// the toolchains, and what the user's Claude Code setup names outside
// ~/.claude. The result is one
// mount.Host, which mount.Build reads; Read gathers it with every other
// fact of the host a launch's plan needs into one Launch.
package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/internal/leafdirs"
	"github.com/claudebox/claudebox/internal/verdict"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/toolchain"
	"github.com/claudebox/claudebox/untrusted"
)

// Host reads the host facts a plan needs. It only reads, but for the
// verdicts of its judges it keeps in stateDir (package verdict).
// state are the directories no bind shows (bind.StateDirs); getenv reads
// the environment claudebox was started in: $HOME as set (home is its real
// path), the PATH the sandbox gets, and the variables that lead the host's
// tools to what they obey (hostVariables); environ is that environment
// whole (NAME=value), whose other variables' values may name a file the
// host obeys too; mcp the MCP servers carried in (their programs are
// shown); leaves, the statuses of the directories two levels below the
// checkout that the look for hard links reads beside (nil for none).
func Host(home, stateDir string, project instance.Project, command string, getenv func(string) string, binds []mount.BindSpec, state []string, mcp map[string]json.RawMessage, claudeArgs []ClaudeArg, environ []string, leaves *leafdirs.Statuses) mount.Host {
	// What the judges found of the files unchanged since the last launch
	// is not read again.
	defer verdict.Use(stateDir)()
	homeEnv, pathEnv := getenv("HOME"), getenv("PATH")
	var h mount.Host
	// A home reached through a link (Fedora Atomic's /home -> var/home)
	// is mounted at its real path; the link makes $HOME as set work too.
	h.Links = linksOn(homeEnv)
	for _, d := range mount.SystemDirs {
		if hp, ok := lstat(d); ok {
			h.System = append(h.System, hp)
		}
	}
	h.NixVar, h.NixProfiles = isDir(mount.NixVar), isDir(mount.NixProfiles)
	h.UsrLocalEtc = realDirs("/usr", mount.UsrLocalEtc)
	// The look through /usr/local's installed files (thousands where
	// npm's global packages lie there) runs beside the rest of the probe,
	// as /etc's below does.
	usrLocalDone := make(chan []mount.HostEntry, 1)
	go func() { usrLocalDone <- usrLocalHidden(mount.UsrLocal) }()
	// The walk of /etc's entries runs beside the rest of the probe.
	type etcFound struct {
		shown     []mount.HostPath
		own       []mount.HostEntry
		leftOut   []string
		dirCopies []mount.DirCopy
	}
	etcDone := make(chan etcFound, 1)
	if etc, ok := lstat(mount.Etc); ok && etc.Link == "" {
		go func() {
			var f etcFound
			f.shown, f.own, f.leftOut = etcShown(mount.Etc)
			if realDirs(mount.Etc, filepath.Dir(filepath.Join(mount.Etc, mount.EtcClaude))) {
				c, leftOut, ok := managedClaudeCopy(mount.Etc, filepath.Join(mount.Etc, mount.EtcClaude))
				if ok {
					f.dirCopies = append(f.dirCopies, c)
				}
				f.leftOut = append(f.leftOut, leftOut...)
				slices.Sort(f.leftOut)
			}
			for _, pattern := range phpConfigDirs {
				dirs, _ := filepath.Glob(filepath.Join(mount.Etc, pattern))
				for _, dir := range dirs {
					if !realDirs(mount.Etc, dir) {
						continue
					}
					c, leftOut, ok := phpDirCopy(mount.Etc, dir)
					if ok {
						f.dirCopies = append(f.dirCopies, c)
					} else {
						rel, _ := filepath.Rel(mount.Etc, dir)
						leftOut = append(leftOut, rel)
					}
					f.leftOut = append(f.leftOut, leftOut...)
				}
			}
			slices.Sort(f.leftOut)
			etcDone <- f
		}()
	} else {
		etcDone <- etcFound{}
	}
	if real, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !paths.UnderAny(real, mount.SystemDirs) {
		h.ResolvConf = real
	}
	secrets := bind.Secrets(home)
	h.ProjectHidden = inProject(project.Checkout, state, secrets)
	if unixSockets, err := os.ReadFile("/proc/net/unix"); err == nil {
		h.ServerSockets = serverSockets(unixSockets, project.Checkout, append([]string{project.Checkout}, project.GitDirs...))
	}
	git := gitConfigView(home, project.Checkout, systemGitConfig, secrets, getenv)
	var own []bind.Own
	h.CredentialsLeftOut = git.leftOut
	settings := settingsCopies(home, secrets)
	var toolsHidden, programDirs []string
	var toolCopies []mount.Mount
	h.Toolchains, h.PathProblems, toolsHidden, toolCopies, programDirs = toolchain.Probe(home, pathEnv, project, binds, state, secrets)
	for _, dir := range programDirs {
		for _, e := range programSubdirsHidden(dir) {
			toolsHidden = append(toolsHidden, e.Path)
		}
	}
	for _, t := range h.Toolchains {
		h.Links = append(h.Links, linksOn(t.Entry)...)
		for _, r := range t.Roots {
			own = append(own, bind.Own{Src: r.Path, Dest: r.Path, Why: r.Why, Role: mount.Tools})
		}
	}
	for _, c := range commandChain(command) {
		if c.Link != "" {
			h.Links = append(h.Links, c)
		} else {
			own = append(own, bind.Own{Src: c.Path, Dest: c.Path, Why: "command installed under $HOME, read-only", Role: mount.HostFiles})
		}
	}
	shownAsIs := append(slices.Concat(mount.SystemDirs, project.GitDirs), project.Checkout)
	for _, b := range binds {
		shownAsIs = append(shownAsIs, b.Dest)
	}
	flagCopies, flagNamed, flagUnshown := claudeFlagFiles(claudeArgs, home, homeEnv, shownAsIs, state, secrets)
	h.ClaudeFlagFiles = flagCopies
	setup, scripts, unshown, hookOutputs, blanked, claudeNamed := claudeSetup(home, homeEnv, stateDir, project, binds, state, secrets, mcp, claudeArgs, flagNamed)
	unshown = append(unshown, flagUnshown...)
	h.Scripts = scripts
	h.AppendPrompt = appendPrompt(claudeArgs, home, homeEnv)
	setup, setupCopies, setupLeftOut, cloneUnshown := setupCredentials(home, setup)
	own = append(own, setup...)
	h.Unshown = append(unshown, cloneUnshown...)
	// A toolchain's root may hold another's (pipx's python in pyenv's
	// versions) or the command: each is mounted once.
	var once []bind.Own
	for i, o := range own {
		inside := func(p bind.Own) bool { return p.Src == p.Dest && o.Src == o.Dest && paths.Within(o.Src, p.Src) }
		if !slices.ContainsFunc(own[:i], inside) && !slices.ContainsFunc(own[i+1:], func(p bind.Own) bool { return p.Src != o.Src && inside(p) }) {
			once = append(once, o)
		}
	}
	var claudeLeftOut []string
	h.ClaudeEntries, h.ClaudeCopies, h.ClaudeHidden, h.ClaudeFrozen, h.ClaudeLinks, h.ClaudeDirCopies, claudeLeftOut = claudeEntries(filepath.Join(home, ".claude"), claudeNamed, hookOutputs, secrets)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, claudeLeftOut...)
	// Where a hook writes in ~/.claude, the sandbox's hook writes its own:
	// read-only, the write would fail, and a failing hook can block the
	// prompt.
	h.ClaudeEntries = slices.DeleteFunc(h.ClaudeEntries, func(e string) bool {
		if slices.ContainsFunc(hookOutputs, func(o string) bool { return paths.Within(o, e) }) {
			fi, err := os.Stat(e)
			h.HookOutputs = append(h.HookOutputs, mount.HookOutput{Path: e, Dir: err == nil && fi.IsDir()})
			return true
		}
		return false
	})
	if kh := filepath.Join(home, ".ssh", "known_hosts"); paths.Exists(kh) {
		h.KnownHosts = kh
	}
	h.SSHFiles, h.SSHLeftOut = sshFiles(filepath.Join(home, ".ssh"))
	obeyed, relative := probeHostObeyed(home, append([]string{project.Checkout}, project.GitDirs...), getenv, environ)
	h.Guards, h.Pins, h.Symlinked, h.Redirects, h.Unprotected = guard.Find(home, project, obeyed, leaves)
	// The other repositories' git directories the sandbox sees (the
	// submodules', a folder's repositories') are judged as the project's.
	others := otherGitDirs(project, h.Guards)
	var reflogsLeftOut []string
	h.Reflogs, reflogsLeftOut, h.WorktreesCrowded = reflogCopies(project, others)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, reflogsLeftOut...)
	var hooksLeftOut []string
	h.HooksHidden, hooksLeftOut = hooksWithCredentials(project, others)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, hooksLeftOut...)
	var notOwnLeftOut []string
	h.GitNotOwn, notOwnLeftOut, h.GitDirCrowded = gitDirNotOwn(project, others)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, notOwnLeftOut...)
	remotes, remotesLeftOut := legacyRemotesWithCredentials(project, others)
	h.GitNotOwn = append(h.GitNotOwn, remotes...)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, remotesLeftOut...)
	h.Unprotected = append(relative, h.Unprotected...)
	h.ObeyedNames = ObeyedAnywhere
	var linked []string
	// What a toolchain's programs do not run with is left out of its
	// mount as a secret is.
	omit := maps.Clone(secrets)
	for _, p := range toolsHidden {
		omit[p] = true
	}
	h.Binds, h.Own, h.Hidden, linked = bind.Layout(home, project, binds, once, state, omit, obeyed)
	h.Own = append(append(h.Own, git.copies...), git.read...)
	h.Own = append(h.Own, settings...)
	h.Own = append(h.Own, toolCopies...)
	var pluginCopies []mount.Mount
	var pluginLeftOut []string
	h.ClaudeEntries, pluginCopies, pluginLeftOut = pluginCredentials(home, project.Root, h.ClaudeEntries, h.ClaudeFrozen)
	h.Own = append(h.Own, pluginCopies...)
	h.Own = append(h.Own, setupCopies...)
	for _, b := range blanked {
		h.Own = append(h.Own, mount.Mount{Kind: mount.RoBindData, Dest: b.path, Why: "empty: what your hooks or status line name, " + b.why, Role: mount.ClaudeConfig})
		h.CredentialsLeftOut = append(h.CredentialsLeftOut, "all of "+tildePath(b.path, home)+" ("+b.why+")")
	}
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, setupLeftOut...)
	h.CredentialsLeftOut = append(h.CredentialsLeftOut, pluginLeftOut...)
	h.Symlinked = append(h.Symlinked, linked...)
	h.UsrLocalHidden = <-usrLocalDone
	etc := <-etcDone
	h.Etc, h.UsersOwn, h.EtcDirCopies = etc.shown, etc.own, etc.dirCopies
	// The settings files the tools read are shown as private copies.
	h.EtcLeftOut = slices.DeleteFunc(etc.leftOut, func(rel string) bool {
		p := filepath.Join(mount.Etc, rel)
		return p == systemGitConfig || slices.ContainsFunc(systemSettings, func(s settingsFile) bool { return s.path == p })
	})
	return h
}

// inProject are the state directories and credential stores that lie
// below the checkout, each that exists and is no link (the real path a
// link leads to is among them), outermost only.
func inProject(checkout string, state []string, secrets map[string]bool) []mount.HostEntry {
	var found []string
	for _, p := range slices.Concat(state, slices.Collect(maps.Keys(secrets))) {
		if p != checkout && paths.Within(p, checkout) {
			found = append(found, p)
		}
	}
	slices.Sort(found)
	var hidden []mount.HostEntry
	for _, p := range slices.Compact(found) {
		if slices.ContainsFunc(hidden, func(e mount.HostEntry) bool { return paths.Within(p, e.Path) }) {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			hidden = append(hidden, mount.HostEntry{Path: p, Dir: fi.IsDir()})
		}
	}
	return hidden
}

// listening is __SO_ACCEPTCON in /proc/net/unix's flags: the socket
// listens.
const listening = 0x10000

// serverSockets are the sockets /proc/net/unix (its text, the kernel's
// list of this network namespace's Unix sockets) has listening at a path
// in one of roots: a socket file there, where its directory's links lead
// (the sandbox sees the project at its real path). A relative path, as a server bound it from its own directory
// (./.overmind.sock), is looked for from checkout. Only the paths are
// read, never the sockets: the list costs no walk of the project, and a
// server started later is not in it.
func serverSockets(list []byte, checkout string, roots []string) []string {
	devs := map[uint64]bool{}
	for _, r := range roots {
		var st unix.Stat_t
		if unix.Stat(r, &st) == nil {
			devs[st.Dev] = true
		}
	}
	var found []string
	for _, line := range strings.Split(string(list), "\n")[1:] {
		// Num RefCount Protocol Flags Type St Inode Path: the inode is
		// padded with spaces, and the path, after one, may hold some.
		var fields []string
		rest := line
		for len(fields) < 7 {
			rest = strings.TrimLeft(rest, " ")
			field, after, ok := strings.Cut(rest, " ")
			if !ok {
				break
			}
			fields, rest = append(fields, field), after
		}
		if len(fields) < 7 {
			continue
		}
		flags, err := strconv.ParseUint(fields[3], 16, 32)
		path := rest
		if err != nil || flags&listening == 0 || path == "" || path[0] == '@' {
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(checkout, path)
		}
		// One lstat passes over most (a desktop's hundreds in /run): a
		// socket on no root's filesystem lies in none. Resolving each
		// one's links took 25 ms for 500.
		var st unix.Stat_t
		if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK || !devs[st.Dev] {
			continue
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			continue
		}
		path = filepath.Join(dir, filepath.Base(path))
		if slices.ContainsFunc(roots, func(r string) bool { return path != r && paths.Within(path, r) }) && !slices.Contains(found, path) {
			found = append(found, path)
		}
	}
	slices.Sort(found)
	return found
}

// copyOf is the private copy of the host file at path, an absolute path
// whose links are resolved here, once: the file it leads to, when that is
// a regular file, with the identity the launch's read must find again.
func copyOf(path string) (mount.Copy, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return mount.Copy{}, false
	}
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return mount.Copy{}, false
	}
	return mount.Copy{Path: path, Src: real, ID: untrusted.IDOf(fi)}, true
}

// homeCopy is copyOf for a file of the user's configuration, which a
// link may lead elsewhere: none is made of a file in a credential store
// (a dotfiles link the sandbox of an enclosing project repointed).
func homeCopy(path string, secrets map[string]bool) (mount.Copy, bool) {
	c, ok := copyOf(path)
	if !ok || bind.InSecret(c.Src, secrets) {
		return mount.Copy{}, false
	}
	return c, true
}

// sshFiles are what --with-ssh shows of dir (~/.ssh) beside known_hosts,
// read-only: config, whose host aliases a push names, as a copy of the
// directives known harmless (sshConfigView), and the public keys, which
// git's SSH signing names as user.signingkey.
// A key is shown only when it reads as a public key, so that no link
// named .pub leads to a private one.
func sshFiles(dir string) (ms []mount.Mount, leftOut []string) {
	read := func(name string) (string, []byte, error) {
		path := filepath.Join(dir, name)
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return path, nil, err
		}
		// A copy of what was judged: what the host writes there later is
		// not shown.
		b, err := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), 1<<20)
		return path, b, err
	}
	if path, b, err := read("config"); err == nil {
		kept, dropped := sshConfigView(b)
		ms = append(ms, mount.Mount{Kind: mount.RoBindData, Dest: path, Content: string(kept), Why: "your SSH configuration (--with-ssh), a private copy of its host aliases", Role: mount.HostFiles})
		for _, d := range dropped {
			leftOut = append(leftOut, d+" in ~/.ssh/config")
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		leftOut = append(leftOut, "all of ~/.ssh/config (it cannot be read whole)")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pub") {
			if path, b, err := read(e.Name()); err == nil && publicKey(b) {
				ms = append(ms, mount.Mount{Kind: mount.RoBindData, Dest: path, Content: string(b), Why: "a public key (--with-ssh), a private copy, for SSH signing", Role: mount.HostFiles})
			}
		}
	}
	return ms, leftOut
}

// sshKeywords are the ssh_config directives a copy keeps, lower-case:
// where and as whom a host alias connects, with which key and
// algorithms, and how the connection behaves. None carries a secret or
// runs a command; any other (SetEnv's variables, ProxyCommand,
// LocalCommand, RemoteCommand, KnownHostsCommand, Include, a provider
// library, what a later OpenSSH adds) is left out: git's ProxyCommand,
// on its command line, is what connects inside.
var sshKeywords = []string{
	"host", "hostname", "user", "port", "identityfile", "identitiesonly", "identityagent", "certificatefile",
	"proxyjump", "addkeystoagent", "forwardagent", "forwardx11", "forwardx11trusted",
	"stricthostkeychecking", "userknownhostsfile", "globalknownhostsfile", "hashknownhosts", "updatehostkeys",
	"checkhostip", "hostkeyalias", "hostkeyalgorithms", "pubkeyacceptedkeytypes", "pubkeyacceptedalgorithms",
	"kexalgorithms", "ciphers", "macs", "casignaturealgorithms", "hostbasedacceptedalgorithms", "requiredrsasize",
	"preferredauthentications", "pubkeyauthentication", "passwordauthentication", "kbdinteractiveauthentication",
	"challengeresponseauthentication", "gssapiauthentication", "gssapidelegatecredentials", "hostbasedauthentication",
	"numberofpasswordprompts", "batchmode", "connecttimeout", "connectionattempts", "serveraliveinterval",
	"serveralivecountmax", "tcpkeepalive", "compression", "addressfamily", "ipqos", "rekeylimit", "loglevel",
	"controlmaster", "controlpath", "controlpersist", "canonicalizehostname", "canonicaldomains",
	"canonicalizefallbacklocal", "canonicalizemaxdots", "canonicalizepermittedcnames", "visualhostkey",
	"verifyhostkeydns", "requesttty", "sessiontype", "stdinnull", "forkafterauthentication",
	"exitonforwardfailure", "escapechar", "sendenv", "tag", "ignoreunknown", "usekeychain", "channeltimeout",
	"obscurekeystroketiming", "enableescapecommandline", "permitlocalcommand", "clearallforwardings",
}

// sshConfigView is an SSH configuration with only what sshKeywords name,
// blank lines kept, each line whole or not at all, and what it left
// out, named by directive and line, never with its value. Comments are
// left out too, unnamed: ssh never reads them, and a line turned off
// (`#SetEnv DEPLOY_KEY=…`) or a note still holds its secret.
// A block whose Match or Host line is left out (Match exec runs a
// command) is left out whole, so that none of its directives applies to
// the block above it.
func sshConfigView(b []byte) (kept []byte, dropped []string) {
	return sshView(b, sshKeywords)
}

// sshSystemKeywords are what a copy of the system's SSH configuration
// keeps: sshKeywords, and Include, which inside reads only what the
// sandbox is shown (Debian's and Fedora's ssh_config include
// ssh_config.d, each of whose files is a copy of its own).
var sshSystemKeywords = append(slices.Clip(sshKeywords), "include")

// SystemSSHConfig is the private copy of the system's SSH configuration
// at path (/etc/ssh/ssh_config and the files of ssh_config.d, which every
// user may read and where an administrator may write a ProxyCommand with
// its token or SetEnv's variables), as sshConfigView keeps the user's,
// its Include lines too, and what it left out; ok is false for another
// path.
func SystemSSHConfig(path string, b []byte) (kept []byte, dropped []string, ok bool) {
	if path != filepath.Join(mount.Etc, "ssh", "ssh_config") && filepath.Dir(path) != filepath.Join(mount.Etc, "ssh", "ssh_config.d") {
		return nil, nil, false
	}
	kept, dropped = sshView(b, sshSystemKeywords)
	return kept, dropped, true
}

// sshView is sshConfigView with the directives keywords name.
func sshView(b []byte, keywords []string) (kept []byte, dropped []string) {
	var out bytes.Buffer
	skipping := false
	for i, line := range strings.SplitAfter(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			out.WriteString(line)
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		// ssh reads a quoted word without its quotes: `Match "exec" …` is
		// a Match exec, `"Host" x` a block's header.
		words := strings.FieldsFunc(sshUnquote.Replace(trimmed), func(r rune) bool { return r == ' ' || r == '\t' || r == '=' })
		keyword := ""
		if len(words) > 0 {
			keyword = strings.ToLower(words[0])
		}
		header := keyword == "host" || keyword == "match"
		if header {
			skipping = false
		}
		// Match exec runs its command: the criterion, not a directive.
		exec := keyword == "match" && slices.ContainsFunc(words[1:], func(w string) bool { return strings.EqualFold(strings.TrimPrefix(w, "!"), "exec") })
		ok := !skipping && !exec && (keyword == "match" || slices.Contains(keywords, keyword)) &&
			!claudesettings.HasCommandCredential([]byte(line)) && !strings.Contains(line, "PRIVATE KEY")
		if header && !ok {
			skipping = true
		}
		switch {
		case ok:
			out.WriteString(line)
		case skipping && !header:
			// Named with its block.
		case exec:
			dropped = append(dropped, fmt.Sprintf("Match exec (line %d) and its block", i+1))
		case len(words) > 0:
			dropped = append(dropped, fmt.Sprintf("%s (line %d)", printable.Escape(words[0]), i+1))
		}
	}
	return out.Bytes(), dropped
}

// sshUnquote takes out the quotes ssh takes out of a configuration's
// words.
var sshUnquote = strings.NewReplacer(`"`, "", "'", "")

// publicKey reports whether b is an OpenSSH public key: one line, of a
// key type and base64.
func publicKey(b []byte) bool {
	line := bytes.TrimSpace(b)
	return !bytes.Contains(line, []byte("\n")) && publicKeyLine().Match(line)
}

var publicKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(ssh|ecdsa|sk)-[a-z0-9@.-]+ [A-Za-z0-9+/]+=*( |$)`) })

// credentialLike is what says a settings file may hold a credential: a
// key that names one (cargo's registry token, GOAUTH); its users add a
// credential in a URL (https://user:token@proxy), as claudesettings
// defines it.
var credentialLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(token|passw|secret|auth)[a-z_-]*["']?\s*[=:]`) })

// credentialLikeHints are what every match of credentialLike holds, in
// lower case.
var credentialLikeHints = []string{"token", "passw", "secret", "auth"}

// isCredentialLike is credentialLike's match, the expression run only on
// text that holds what its every match does (credential.MayHold): on a
// loaded 2-core machine it took about 2 ms a launch on the rebuilt
// /etc/php files alone.
func isCredentialLike(b []byte) bool {
	return credential.MayHold(b, credentialLikeHints) && credentialLike().Match(b)
}

// linksOn returns the symlinks met on the way to path, each as read, so
// that the path resolves inside as it does on the host.
func linksOn(path string) []mount.HostPath {
	var links []mount.HostPath
	done := "/"
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(path), "/"), "/")
	for hops := 0; len(rest) > 0 && rest[0] != "" && hops < 40; {
		next := filepath.Join(done, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(next)
		if err != nil {
			return links
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		hops++
		target, err := os.Readlink(next)
		if err != nil {
			return links
		}
		if !paths.UnderAny(next, mount.SystemDirs) {
			links = append(links, mount.HostPath{Path: next, Link: target})
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(done, target)
		}
		rest = append(strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/"), rest...)
		done = "/"
	}
	return links
}

// claudeState are the entries of ~/.claude that are Claude Code's own state
// rather than configuration: other projects' sessions, file snapshots,
// pastes, todos, plans, logs, caches, IDE and daemon sockets, sentinels.
// They stay hidden; the sandbox's Claude makes its own, privately. Names
// as Claude Code 2.1.330 uses them; projects/, history.jsonl, the login
// and SANDBOX.md are overlaid by the plan.
var claudeState = map[string]bool{
	"projects": true, "history.jsonl": true, ".credentials.json": true, mount.SandboxMDFile: true,
	"todos": true, "sessions": true, "session-env": true, "shell-snapshots": true,
	"file-history": true, "plans": true, "debug": true, "statsig": true, "backups": true,
	"paste-cache": true, "cache": true, "telemetry": true, "tasks": true, "teams": true,
	"jobs": true, "daemon": true, "daemon.json": true, "daemon.log": true,
	"daemon.status.json": true, "daemon.scheduled.status.json": true, "usage-data": true,
	"traces": true, "shares": true, "uploads": true, "startup-perf": true,
	"mcp-discovery-cache": true, "mcp-needs-auth-cache.json": true, "state": true,
	"feedback": true, "feedback-bundles": true, "dump-prompts": true, "ccr": true,
	"remote-control": true, "chrome": true, "ide": true, "local": true,
	"hfi-auth.json": true, "gh-pr-status-cache.json": true,
	"plugins/data": true, "plugins/store": true, "plugins/enabled-copies-hash": true, "plugins/enabled-plugins-fetch": true,
	// Its sentinels: when it last cleaned old sessions, caches and
	// versions up, and that a deep link's registration failed.
	".last-cleanup": true, ".npm-cache-cleanup": true, ".version-cleanup": true, ".deep-link-register-failed": true,
}

// claudeDirCopies are the files in ~/.claude that Claude Code saves (/config,
// permission rules, /memory); the rest of ~/.claude is read-only inside.
var claudeDirCopies = []string{"settings.json", "settings.local.json", "CLAUDE.md"}

// claudeConfig are the entries of ~/.claude that are Claude Code's
// configuration, as Claude Code 2.1.330 reads them: only these, the files
// CLAUDE.md imports with @ (claudeMDImports; not every Markdown file
// beside it: a runbook with a vault token is read by nothing there), and
// what the user's settings name (a hook's or the status line's script)
// are shown. Any other entry is hidden, whatever it holds: a file Claude
// Code starts keeping there (an old ~/.claude/.config.json holds the
// account) is not shown because a list of its state has yet to name it.
var claudeConfig = map[string]bool{
	"settings.json": true, "settings.local.json": true, "CLAUDE.md": true,
	"commands": true, "agents": true, "skills": true, "plugins": true,
	"output-styles": true, "rules": true, "themes": true, "workflows": true,
	"keybindings.json": true, "loop.md": true,
}

// ClaudeConfig says whether name, an entry of ~/.claude, is Claude
// Code's configuration.
func ClaudeConfig(name string) bool { return claudeConfig[name] }

// ClaudeState says whether name, an entry of ~/.claude, is Claude Code's
// known state, which it makes itself.
func ClaudeState(name string) bool { return claudeState[name] }

// claudePluginsConfig are the entries of ~/.claude/plugins shown: the
// marketplaces and plugins installed, and their lists. The plugins' own
// data (data/, which a plugin may keep a token in) and the built-in
// plugins' store are state: hidden, so that the sandbox's plugins keep
// their own, privately.
var claudePluginsConfig = map[string]bool{
	"known_marketplaces.json": true, "installed_plugins.json": true, "installed_plugins_v2.json": true,
	"marketplaces": true, "cache": true, "install-counts-cache.json": true,
}

// claudeEntries sorts the real ~/.claude's entries into those shown
// read-only, the files Claude Code saves, which get private copies, and
// those hidden that are neither configuration nor Claude Code's known
// state (hidden, named). named are the paths in dir the user's settings
// name (shown, each alone); hookOutputs, what its hooks write in dir,
// whose entries are shown whole (and then left to the sandbox's hooks).
// Only files, directories and links are shown: a socket stays connectable
// on a read-only mount. frozen are the directories shown entry by entry
// as the launch found them; links, the links among their entries.
func claudeEntries(dir string, named, hookOutputs []string, secrets map[string]bool) (entries []string, copies []mount.Copy, hidden, frozen []string, links []mount.HostPath, dirCopies []mount.DirCopy, leftOut []string) {
	shown := func(name string) bool {
		if inPlugins, ok := strings.CutPrefix(name, "plugins/"); ok {
			return claudePluginsConfig[inPlugins]
		}
		return claudeConfig[name] || slices.Contains(named, filepath.Join(dir, name))
	}
	// A path named deeper than an entry is shown alone.
	var deeper []string
	for _, p := range named {
		if rel, _ := filepath.Rel(dir, p); strings.Contains(rel, "/") && !shown(strings.Split(rel, "/")[0]) {
			if fi, err := os.Lstat(p); err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
				deeper = append(deeper, p)
			}
		}
	}
	for _, rel := range []string{"", "plugins"} {
		des, _ := os.ReadDir(filepath.Join(dir, rel))
		for _, de := range des {
			name := filepath.Join(rel, de.Name())
			holdsNamed := slices.ContainsFunc(deeper, func(p string) bool { return paths.Within(p, filepath.Join(dir, name)) })
			if !shown(name) && !holdsNamed && !claudeState[name] && !strings.HasSuffix(name, ".lock") && !strings.Contains(name, ".tmp.") {
				hidden = append(hidden, filepath.Join(dir, name))
			}
		}
	}
	w := claudeWalk{dir: dir, shown: shown, named: named, hookOutputs: hookOutputs, secrets: secrets, home: filepath.Dir(dir)}
	w.in("")
	for _, p := range deeper {
		w.show(p)
	}
	return w.entries, w.copies, hidden, w.frozen, w.links, w.dirCopies, w.leftOut
}

// claudeLockDirs are the directories of ~/.claude in which Claude Code
// (2.1.330) takes a lock beside a file before it reads or updates it (a
// directory FILE.lock, five tries over 2 s): they are shown entry by entry,
// so that each is the sandbox's own and the lock is taken at once, while
// their entries stay read-only. Whole and read-only, every claude -p
// waited 2.2 s on known_marketplaces.json's lock before it exited.
var claudeLockDirs = map[string]bool{"plugins": true}

// cloneTargets are the directories of an agent's configuration directory
// into which the user clones what it reads (a team's skills, a
// repository each), frozen (claudeWalk).
var cloneTargets = map[string]bool{"skills": true}

// claudeCloneDirs are the directories of ~/.claude/plugins in which the
// host's Claude Code clones a marketplace or a plugin (with the
// marketplace's token in the clone's configuration), frozen as the
// directories of ~/.claude are.
var claudeCloneDirs = []string{"plugins/marketplaces", "plugins/cache", "plugins/cache/*", "plugins/cache/*/*"}

// cloneDir says the directory name of ~/.claude is one of
// claudeCloneDirs.
func cloneDir(name string) bool {
	return slices.ContainsFunc(claudeCloneDirs, func(pattern string) bool {
		ok, _ := filepath.Match(pattern, name)
		return ok
	})
}

// claudeWalk is claudeEntries' walk of ~/.claude (dir): at the top and in
// plugins/, only the entries shown says. The directories where clones
// go (skills, cloneTargets; a directory the settings name, a local
// marketplace; the plugins' clones, claudeCloneDirs, to the depth the
// host's Claude Code clones) are frozen: shown entry by entry as the
// launch found them, in read-only directories of the sandbox's, so that
// what the host clones or writes there during the session (a clone's
// token in its configuration), which the launch did not look through, is
// not shown. Every entry frozen is a mount, which costs each launch
// (about a millisecond on a loaded 2-core machine): the directories of
// files alone (agents, commands) are shown whole. A link is followed
// where the user keeps ~/.claude's configuration (stow links it into a
// dotfiles repository); among a frozen directory's entries, a link is
// made again as it is (a cloned skill's link to ~/.aws leads nowhere
// inside).
type claudeWalk struct {
	dir         string
	shown       func(string) bool
	named       []string
	hookOutputs []string
	secrets     map[string]bool
	entries     []string
	copies      []mount.Copy
	frozen      []string
	links       []mount.HostPath
	dirCopies   []mount.DirCopy
	// home and leftOut: what of the directories shown is left out for
	// being named as credentials are kept, written from the home.
	home    string
	leftOut []string
}

func (w *claudeWalk) in(rel string) {
	des, _ := os.ReadDir(filepath.Join(w.dir, rel))
	for _, de := range des {
		name := filepath.Join(rel, de.Name())
		if !w.shown(name) || claudeState[name] || strings.HasSuffix(name, ".lock") || strings.Contains(name, ".tmp.") {
			continue
		}
		path := filepath.Join(w.dir, name)
		fi, err := os.Stat(path)
		switch {
		case err != nil:
		case fi.Mode().IsRegular() && name == "CLAUDE.md" && credentialFile(path):
			// Your memory, judged as the files it imports are: a token
			// /memory or a # note saved there was readable inside.
			w.leftOut = append(w.leftOut, credentialFileNote(tildePath(path, w.home)))
		case fi.Mode().IsRegular() && slices.Contains(claudeDirCopies, name):
			if c, ok := homeCopy(path, w.secrets); ok {
				w.copies = append(w.copies, c)
			}
		case fi.IsDir() && claudeLockDirs[name]:
			w.in(name)
		default:
			w.show(path)
		}
	}
}

// show shows path, a file or a directory of the user's configuration; a
// directory where clones go frozen, but one the hooks write into (whole,
// and left to the sandbox's hooks).
func (w *claudeWalk) show(path string) {
	fi, err := os.Stat(path)
	rel, _ := filepath.Rel(w.dir, path)
	switch {
	case err != nil:
	case fi.IsDir() && (cloneTargets[rel] || cloneDir(rel) || slices.Contains(w.named, path)) &&
		!slices.ContainsFunc(w.hookOutputs, func(o string) bool { return paths.Within(o, path) }):
		w.freeze(path)
	case fi.IsDir() && copiedDirs[rel] && !slices.ContainsFunc(w.hookOutputs, func(o string) bool { return paths.Within(o, path) }):
		if c, creds, ok := dirCopy(path); ok {
			w.dirCopies = append(w.dirCopies, c)
			for _, p := range creds {
				w.leftOut = append(w.leftOut, credentialFileNote(tildePath(p, w.home)))
			}
		} else {
			w.entries = append(w.entries, path)
		}
	case fi.Mode().IsRegular() && claudeConfig[rel] && credentialFile(path):
		// A file of ~/.claude's own (loop.md, keybindings.json) is
		// judged as the files of its directories are; plugins' lists
		// are copies without their URLs' credentials (pluginCredentials).
		w.leftOut = append(w.leftOut, credentialFileNote(tildePath(path, w.home)))
	case fi.Mode().IsRegular() || fi.IsDir():
		w.entries = append(w.entries, path)
	}
}

// copiedDirs are the directories of ~/.claude that hold files alone
// (Markdown, JSON), shown as a private copy of what the launch read, bound
// once: whole, they were live (a clone the host made there during the
// session showed, its token in its configuration); frozen, each file
// would be a mount (0.64 ms each at every launch, measured with
// BenchmarkBwrapMounts on a loaded 2-core machine).
var copiedDirs = map[string]bool{"agents": true, "commands": true, "output-styles": true, "rules": true, "themes": true, "workflows": true}

// freeze shows the directory path entry by entry, the plugins' clone
// directories below it frozen too.
func (w *claudeWalk) freeze(path string) {
	w.frozen = append(w.frozen, path)
	entries, links, creds := frozenEntries(path)
	w.links = append(w.links, links...)
	for _, c := range creds {
		w.leftOut = append(w.leftOut, credentialFileNote(tildePath(c, w.home)))
	}
	for _, e := range entries {
		switch rel, _ := filepath.Rel(w.dir, e); {
		case strings.HasSuffix(e, ".lock") || strings.Contains(filepath.Base(e), ".tmp."):
			// Claude Code's lock, or a file it is writing.
		case cloneDir(rel) && isDir(e):
			w.freeze(e)
		default:
			w.entries = append(w.entries, e)
		}
	}
}

// frozenEntries are the entries of dir, a directory shown as the launch
// found it: its files and directories (entries, each bound read-only) and
// its links (made again as they are, not followed); a socket, a FIFO or a
// device is left out, and so is a file named as credentials are kept
// (credentialFile; creds).
func frozenEntries(dir string) (entries []string, links []mount.HostPath, creds []string) {
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		path := filepath.Join(dir, de.Name())
		switch {
		case de.Type()&os.ModeSymlink != 0:
			if target, err := os.Readlink(path); err == nil {
				links = append(links, mount.HostPath{Path: path, Link: target})
			}
		case de.Type().IsRegular() && credentialFile(path):
			creds = append(creds, path)
		case de.Type().IsRegular() || de.IsDir():
			entries = append(entries, path)
		}
	}
	return entries, links, creds
}

// commandChain follows command's symlinks while they lie outside the system
// directories (the native installer's ~/.local/bin/claude points into
// ~/.local/share/claude/versions, both hidden by the private $HOME), and
// returns the links to recreate and what of the real file to bind: its
// npm package, or the file alone.
func commandChain(path string) []mount.HostPath {
	var chain []mount.HostPath
	for i := 0; i < 40 && path != "" && !paths.UnderAny(path, mount.SystemDirs); i++ {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			// An npm package keeps its executable in bin/ beside the rest,
			// or its script beside package.json; any other program is
			// shown alone: the directory it was downloaded into
			// (~/Downloads) holds what else was.
			dir := filepath.Dir(path)
			switch {
			case filepath.Base(dir) == "bin" && paths.Exists(filepath.Join(filepath.Dir(dir), "package.json")):
				return append(chain, mount.HostPath{Path: filepath.Dir(dir)})
			case paths.Exists(filepath.Join(dir, "package.json")):
				return append(chain, mount.HostPath{Path: dir})
			}
			return append(chain, mount.HostPath{Path: path})
		}
		target, err := os.Readlink(path)
		if err != nil {
			return nil
		}
		chain = append(chain, mount.HostPath{Path: path, Link: target})
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = filepath.Clean(target)
	}
	return chain
}

func lstat(path string) (mount.HostPath, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return mount.HostPath{}, false
	}
	hp := mount.HostPath{Path: path}
	if fi.Mode()&os.ModeSymlink != 0 {
		if hp.Link, err = os.Readlink(path); err != nil {
			return mount.HostPath{}, false
		}
	}
	return hp, true
}

// linkScans are the directories of the home whose links the host follows
// to what it obeys, and how many levels of entries below each are looked
// at. GNU stow links a whole directory where it can ("folding") and, where
// the directory already exists or two packages share it, a link for each
// entry inside, one level further down each time: ~/.ssh/config beside the
// keys, ~/.config/fish/config.fish beside fish_variables,
// ~/.config/nvim/lua/plugins beside what a plugin manager writes. Three
// levels below ~/.config cover those, two below ~/.local/share its
// applications' and fonts' files (a third would read every directory of
// Steam's, flatpak's and the Trash's); stow --no-folding links every file at
// any depth, which they do not.
var linkScans = []linkScan{
	{".config", configDepth},
	{filepath.Join(".local", "share"), dataDepth},
	{filepath.Join(".local", "bin"), 1},
	{".ssh", 2},
	{".claude", 2},
	// The programs' directory Debian's and Ubuntu's ~/.profile put on
	// PATH where it exists: another shell of the user's runs from it when
	// claudebox's PATH lacks it.
	{"bin", 1},
}

// linkScan is a directory of the home, and how many levels of entries
// below it are looked at for links.
type linkScan struct {
	dir   string
	depth int
}

const configDepth, dataDepth = 3, 2

// dotDirDepth is how many levels of entries below each of the home's other
// dot-directories the links are looked at: a file stow linked in a
// directory that existed (~/.bashrc.d/aliases.sh), one below
// (~/.emacs.d/lisp/init-go.el), or two further (~/.vim/after/plugin/go.vim,
// a plugin ~/.vim/pack/mine/start/x). Each level reads every
// directory of the one above, so below the second a directory's
// subdirectories are entered only where it has at most dotDirFanOut: a
// layout of settings is narrow, where a collection (a plugin manager's
// clones, a version manager's installs, a cache's hash buckets) holds
// hundreds. The cache home, which holds no settings, is read cacheDepth
// levels down.
const dotDirDepth, dotDirFanOut, cacheDepth = 4, 16, 2

// hostVariables are the variables of the environment claudebox was
// started in that name what the host's tools obey, wherever it is: a
// configuration home or directory (its files and their links too), a
// configuration file, a list of such directories, or a program run.
// Another shell of the user's may lack them; the defaults stay guarded.
var hostVariables = []hostVariable{
	{"XDG_CONFIG_HOME", configHome},
	{"XDG_DATA_HOME", configHome},
	{"ZDOTDIR", configHome},
	// The host's claude's settings, hooks among them, when it moves them
	// from ~/.claude: one the session made there ran at the next claude.
	{"CLAUDE_CONFIG_DIR", configHome},
	{"XDG_CONFIG_DIRS", directoryList},
	{"XDG_DATA_DIRS", directoryList},
	{"GIT_CONFIG_GLOBAL", gitConfig},
	{"GIT_CONFIG_SYSTEM", gitConfig},
	{"GIT_DIR", gitDir},
	{"GIT_COMMON_DIR", gitDir},
	{"GIT_TEMPLATE_DIR", obeyedPath},
	{"GIT_EXEC_PATH", obeyedPath},
	{"BASH_ENV", obeyedPath},
	{"ENV", obeyedPath},
	{"LD_LIBRARY_PATH", directoryList},
	{"LD_PRELOAD", directoryList},
	{"EDITOR", program},
	{"VISUAL", program},
	{"PAGER", program},
	{"GIT_EDITOR", program},
	{"GIT_SEQUENCE_EDITOR", program},
	{"GIT_PAGER", program},
	{"GIT_SSH", program},
	{"GIT_SSH_COMMAND", program},
	{"GIT_ASKPASS", program},
	{"SSH_ASKPASS", program},
	{"GIT_EXTERNAL_DIFF", program},
	// Files and directories of other tools' settings that run what they
	// say: readline's macros type commands into the shell, Python's
	// startup file and IPython's and Jupyter's startup scripts run at a
	// prompt, vim's, psql's (\!), R's, screen's, gpg-agent's
	// (pinentry-program), kubectl's (an exec plugin), the AWS CLI's
	// (credential_process), npm's and pip's, Docker's (a credential helper).
	{"INPUTRC", obeyedPath},
	{"PYTHONSTARTUP", obeyedPath},
	{"IPYTHONDIR", obeyedPath},
	{"JUPYTER_CONFIG_DIR", obeyedPath},
	{"MYVIMRC", obeyedPath},
	{"PSQLRC", obeyedPath},
	{"R_PROFILE_USER", obeyedPath},
	{"SCREENRC", obeyedPath},
	{"GNUPGHOME", obeyedPath},
	{"KUBECONFIG", directoryList},
	{"AWS_CONFIG_FILE", obeyedPath},
	{"NPM_CONFIG_USERCONFIG", obeyedPath},
	{"PIP_CONFIG_FILE", obeyedPath},
	{"DOCKER_CONFIG", obeyedPath},
	// Directories of settings (a file a variable names is obeyed whatever
	// the variable, below): cargo's (a runner, a rustc wrapper), mise's
	// (hooks, an [env] that sources), curl's .curlrc, direnv's direnvrc,
	// Mercurial's *.rc files (hooks, extensions).
	{"CARGO_HOME", obeyedPath},
	{"MISE_CONFIG_DIR", obeyedPath},
	{"CURL_HOME", obeyedPath},
	{"DIRENV_CONFIG", obeyedPath},
	{"HGRCPATH", directoryList},
	// Programs they run by path: less's input filter (|/path %s),
	// a browser, a man pager, sudo's password prompt.
	{"LESSOPEN", program},
	{"LESSCLOSE", program},
	{"BROWSER", program},
	{"MANPAGER", program},
	{"SUDO_ASKPASS", program},
	// Go's own list of certificate directories, which the supervisor's
	// proxy reads at its first TLS connection (as it reads SSL_CERT_FILE,
	// one of caVariables).
	{"SSL_CERT_DIR", directoryList},
}

// unobeyedVariables name files no host tool runs or obeys as settings:
// the shell's working directories, and direnv's record of the .envrc it
// loaded, whose permission the session takes back itself when the .envrc
// changes (session/direnv.go).
var unobeyedVariables = []string{"PWD", "OLDPWD", "INIT_CWD", "DIRENV_FILE", "DIRENV_DIR"}

// pathsIn are the absolute paths a variable's value names anywhere in it:
// its words split where values separate them (a list's colons and
// commas, an option's = or :, spaces, quotes), each from its first slash
// (-r/x.rb, @/args), or ~/ the home.
func pathsIn(value, home string) []string {
	var found []string
	for _, word := range strings.FieldsFunc(value, func(r rune) bool {
		return r == ':' || r == '=' || r == ',' || r == ';' || r == '"' || r == '\'' || unicode.IsSpace(r)
	}) {
		if strings.HasPrefix(word, "~/") {
			word = paths.ExpandHome(word, home)
		}
		if i := strings.IndexByte(word, '/'); i >= 0 {
			found = append(found, word[i:])
		}
	}
	return found
}

type hostVariable struct {
	name string
	kind variableKind
}

// obeyedVariables are hostVariables and caVariables: the host's tools, and
// the supervisor's proxy, trust the certificates a CA bundle holds.
func obeyedVariables() []hostVariable {
	vars := slices.Clone(hostVariables)
	for _, name := range caVariables {
		vars = append(vars, hostVariable{name, obeyedPath})
	}
	return vars
}

type variableKind int

const (
	configHome    variableKind = iota // a directory of configuration, whose links are followed as ~/.config's
	directoryList                     // paths separated by colons (LD_PRELOAD: or spaces)
	gitConfig                         // a git configuration file
	gitDir                            // a repository's git directory
	obeyedPath                        // a file or directory the host reads or runs
	program                           // a command line, whose first word is run
)

// probeHostObeyed finds the real paths behind what the host runs or obeys
// from the user's home, PATH and environment: the links among the home's
// dotfiles and in the directories of linkScans (stow, home-manager and the
// like point them into a dotfiles repository), ~/.claude.json, what
// hostVariables name, git's global and system configuration and the files
// it includes or names (hooks, excludes, attributes), and each PATH entry.
// Those that lie in a writable mount are guarded there. A relative PATH
// entry or variable follows the host's working directory, so no guard can
// stand for it: it is returned apart. checkouts are the project's, whose
// own links the scan of the home's other dot-directories passes over.
func probeHostObeyed(home string, checkouts []string, getenv func(string) string, environ []string) (obeyed []guard.Obeyed, relative []mount.Unprotected) {
	// resolved adds o, at what path resolves to, and each link on the way
	// there: a link the sandbox could replace would lead the host
	// elsewhere (the launch refuses one in a writable mount).
	resolved := func(o guard.Obeyed, path string) {
		o.Path = realPath(path, 0)
		obeyed = append(obeyed, o)
		for _, l := range linksOnTheWay(path) {
			obeyed = append(obeyed, guard.Obeyed{Path: l, From: o.From})
		}
	}
	add := func(path, from string) { resolved(guard.Obeyed{From: from}, path) }
	addGit := func(path, from string) { resolved(guard.Obeyed{From: from, GitReads: true}, path) }
	unprotected := func(from, value string) {
		u := mount.Unprotected{From: from, Reason: fmt.Sprintf("the relative entry %q runs what is in whichever directory your shell is in, the project's too", value)}
		if !slices.Contains(relative, u) {
			relative = append(relative, u)
		}
	}
	tilde := func(p string) string {
		if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
			return "~/" + rel
		}
		return p
	}
	// links adds the links among dir's entries, depth levels down; whole
	// says dir is itself obeyed, guarded whole where the sandbox writes,
	// so that a link in it cannot be repointed: what it leads to is added,
	// not the link (a certificate directory's hash links, a configuration's
	// own links, which would refuse the launch).
	// skip are the project's paths, in the other dot-directories: not
	// looked in (its own links are its files), nor a link there that leads
	// to a folder holding it (Wine's drive z: is /), which is no setting.
	// narrow, there too: from that many levels left on, a directory's
	// subdirectories are entered only where it has at most
	// dotDirFanOut of them.
	var skip []string
	narrow := 0
	var links func(dir string, depth int, whole bool)
	links = func(dir string, depth int, whole bool) {
		des, _ := os.ReadDir(dir)
		enter := true
		if depth <= narrow {
			enter = len(slices.DeleteFunc(slices.Clone(des), func(de os.DirEntry) bool { return !de.IsDir() })) <= dotDirFanOut
		}
		for _, de := range des {
			path := filepath.Join(dir, de.Name())
			if paths.UnderAny(path, skip) {
				continue
			}
			// A link to a sibling (a version manager's python3 to
			// python3.12) leads where the sibling, itself looked at,
			// does.
			if !whole && de.Type()&os.ModeSymlink != 0 {
				if target, err := os.Readlink(path); err == nil && !strings.Contains(target, "/") && target != ".." && target != "." {
					continue
				}
			}
			if len(skip) > 0 && de.Type()&os.ModeSymlink != 0 {
				if target := realPath(path, 0); slices.ContainsFunc(skip, func(c string) bool { return paths.Within(c, target) }) {
					continue
				}
			}
			if de.Type()&os.ModeSymlink != 0 {
				if !whole {
					add(path, tilde(path))
				} else if target, err := os.Readlink(path); err == nil {
					if !filepath.IsAbs(target) {
						target = dir + "/" + target
					}
					add(target, tilde(path))
				}
			}
			// A linked directory is guarded whole, but its own links may
			// lead elsewhere.
			if depth > 1 && enter && (de.IsDir() || de.Type()&os.ModeSymlink != 0 && isDir(path)) {
				links(path, depth-1, whole || de.Type()&os.ModeSymlink != 0)
			}
		}
	}
	// In $HOME itself only the dotfiles: ~/code may well lead to the
	// project.
	des, _ := os.ReadDir(home)
	for _, de := range des {
		if de.Type()&os.ModeSymlink != 0 && strings.HasPrefix(de.Name(), ".") {
			add(filepath.Join(home, de.Name()), tilde(filepath.Join(home, de.Name())))
		}
	}
	for _, s := range linkScans {
		// ~/.local/bin may be a link where ~/.local is not.
		dir := filepath.Join(home, s.dir)
		linked := false
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			add(dir, tilde(dir))
			linked = true
		}
		links(dir, s.depth, linked)
	}
	// Every other directory among them: stow links a file on its own
	// where its directory exists already, in any of them
	// (~/.bashrc.d/aliases.sh, ~/.vim/vimrc, ~/.gnupg/gpg-agent.conf),
	// not only in those a list names. A linked one was added above.
	skip, narrow = checkouts, dotDirDepth-1
	for _, de := range des {
		scanned := slices.ContainsFunc(linkScans, func(s linkScan) bool { return s.dir == de.Name() })
		if strings.HasPrefix(de.Name(), ".") && de.IsDir() && !scanned {
			depth := dotDirDepth
			if de.Name() == ".cache" {
				depth = cacheDepth
			}
			links(filepath.Join(home, de.Name()), depth, false)
		}
	}
	skip, narrow = nil, 0
	// git's global and system configuration, the files they include and
	// those they name: every file the host's git may read as such, with
	// the variables or without.
	type gitFile struct{ path, from string }
	configs := []gitFile{{filepath.Join(home, ".gitconfig"), "~/.gitconfig"}, {filepath.Join(home, ".config", "git", "config"), "~/.config/git/config"}, {"/etc/gitconfig", "/etc/gitconfig"}}
	for _, v := range obeyedVariables() {
		value := getenv(v.name)
		if value == "" {
			continue
		}
		from := "$" + v.name
		var values []string
		switch v.kind {
		case directoryList:
			values = strings.FieldsFunc(value, func(r rune) bool { return r == ':' || v.name == "LD_PRELOAD" && r == ' ' })
		case program:
			// A bare name is looked up in PATH; one with a slash is a path.
			// less's filters begin with | or ||, or - for a filter that
			// reads its input itself.
			if fields := strings.Fields(strings.TrimLeft(value, "|-")); len(fields) > 0 && strings.Contains(fields[0], "/") {
				values = []string{paths.ExpandHome(fields[0], home)}
			}
		default:
			values = []string{value}
		}
		for _, p := range values {
			if !filepath.IsAbs(p) {
				// The XDG directories ignore a relative entry.
				if !strings.HasPrefix(v.name, "XDG_") {
					unprotected(from, p)
				}
				continue
			}
			// Resolved as the kernel does: "link/.." is the link's parent.
			raw := p
			p = filepath.Clean(p)
			switch v.kind {
			case gitConfig:
				configs = append(configs, gitFile{raw, from})
			case gitDir:
				resolved(guard.Obeyed{From: from, GitDir: true}, raw)
			case configHome:
				add(raw, from)
				if v.name == "XDG_DATA_HOME" {
					links(p, dataDepth, true)
				} else {
					links(p, configDepth, true)
				}
				if v.name == "XDG_CONFIG_HOME" {
					configs = append(configs, gitFile{filepath.Join(p, "git", "config"), from + "/git/config"})
				}
			default:
				add(raw, from)
				// A certificate directory's entries may be links (to a
				// bundle elsewhere), which the host's tools follow; only
				// the directory's owner adds one, and the system's are
				// root's.
				if v.name == "SSL_CERT_DIR" && ownDir(p) {
					links(p, 1, true)
				}
			}
		}
	}
	// Every other variable: a file its value names by an absolute path,
	// anywhere in it, is obeyed, as no list can know which variables a
	// host tool reads (NODE_OPTIONS' --require FILE, RUBYOPT's -rFILE,
	// JAVA_TOOL_OPTIONS' -javaagent:FILE, STARSHIP_CONFIG, GOENV). A
	// directory is not: such a value as often names where the project's
	// code or a build's output lies (PYTHONPATH, GOPATH,
	// CARGO_TARGET_DIR), which the agent must write; the directories of
	// settings that run what they hold are hostVariables.
	listed := map[string]bool{"PATH": true}
	for _, v := range obeyedVariables() {
		listed[v.name] = true
	}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if listed[name] || slices.Contains(unobeyedVariables, name) {
			continue
		}
		for _, p := range pathsIn(value, home) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				add(p, "$"+name)
			}
		}
	}
	seen, includes := map[string]bool{}, len(configs)
	for i := 0; i < len(configs) && i < 30; i++ {
		config := realPath(configs[i].path, 0)
		if seen[config] {
			continue
		}
		seen[config] = true
		name := tilde(configs[i].path)
		resolved(guard.Obeyed{From: configs[i].from, GitReads: true, UserGitConfig: i < includes}, configs[i].path)
		// A file git refuses makes the host's git refuse to run too: it
		// obeys nothing there.
		entries, _ := gitconfig.Read(config)
		// A relative hooksPath is the repository's; commonDir has it.
		if p := paths.ExpandHome(gitconfig.Last(entries, "core.hookspath"), home); filepath.IsAbs(p) {
			add(p, "core.hookspath in "+name)
		}
		for _, key := range []string{"core.excludesfile", "core.attributesfile"} {
			if p := paths.ExpandHome(gitconfig.Last(entries, key), home); filepath.IsAbs(p) {
				addGit(p, key+" in "+name)
			}
		}
		for _, e := range entries {
			if p := programPath(e, home); p != "" {
				add(p, e.Key+" in "+name)
			}
		}
		for _, inc := range gitconfig.Includes(entries) {
			if inc = paths.ExpandHome(inc, home); !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(config), inc)
			}
			configs = append(configs, gitFile{inc, "included by " + name})
		}
	}
	for _, entry := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(entry) {
			unprotected(guard.PathFrom, entry)
			continue
		}
		add(entry, guard.PathFrom)
		// A program there may be a link to a script in a checkout
		// (~/bin/tool to ~/code/tool/tool.sh), which the host runs by its
		// name: what it leads to is obeyed too. Not the system's (links
		// among thousands of programs), nor into node_modules (the exit
		// audit judges installed packages whole).
		if !paths.UnderAny(entry, mount.SystemDirs) || paths.Within(entry, "/usr/local") {
			des, _ := os.ReadDir(entry)
			for _, de := range des {
				link := filepath.Join(entry, de.Name())
				if de.Type()&os.ModeSymlink == 0 {
					continue
				}
				if target, err := os.Readlink(link); err == nil && !strings.Contains("/"+target+"/", "/node_modules/") && !isDir(link) {
					if !filepath.IsAbs(target) {
						target = entry + "/" + target
					}
					add(target, tilde(link))
				}
			}
		}
	}
	return obeyed, relative
}

// programPath returns the program a git configuration entry runs, when it
// runs one named by an absolute or ~/ path (an editor, pager, credential
// helper, filter or diff driver, alias, or the template directory whose
// hooks every new repository gets), or "".
func programPath(e gitconfig.Entry, home string) string {
	if e.NoValue || !gitconfig.RunsCommand(e.Key) && e.Key != "init.templatedir" {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(e.Value, "!"))
	if len(fields) == 0 {
		return ""
	}
	if p := paths.ExpandHome(fields[0], home); filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return ""
}

// linksOnTheWay are the symlinks the kernel meets as it resolves the
// absolute path, each named by its resolved directory: ".." after a link
// is the link target's parent.
func linksOnTheWay(path string) []string {
	var links []string
	todo := strings.Split(path, "/")
	cur := "/"
	for hops := 0; len(todo) > 0 && hops <= 40; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		links = append(links, next)
		hops++
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return links
}

// ownDir says whether dir is a directory of the user's own.
func ownDir(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// realPath resolves every symlink in path, also when its last ones lead to
// something missing: the host would create or run what is there.
func realPath(path string, hops int) string {
	if _, err := os.Lstat(path); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return real
		}
		// A link to something missing.
		target, err := os.Readlink(path)
		if err != nil || hops > 40 {
			return path
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		return realPath(filepath.Clean(target), hops+1)
	}
	if dir := filepath.Dir(path); dir != path {
		return filepath.Join(realPath(dir, hops), filepath.Base(path))
	}
	return path
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// ObeyedAnywhere are the file names the host's tools obey in whichever
// directory of the project they start: the nearest .env, which git
// ignores, is loaded into the environment of gemini (above its working
// directory), direnv's dotenv, docker compose (COMPOSE_FILE chooses what
// it runs), pipenv and bun. Judged whatever the host has on its PATH
// today: no list of the tools that load one could be complete.
var ObeyedAnywhere = []string{".env"}
