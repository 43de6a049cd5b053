package probe

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// gitKnownSections are the sections of git's configuration none of
// whose variables, as git documents them, is a credential: git's own
// settings (its colors, diffs, aliases, signing, remotes and their URLs,
// submodules, hooks path, pager) and delta's (a pager's display). What
// crosses of them is still judged by its value (gitSecretEntry).
var gitKnownSections = map[string]bool{
	"add": true, "advice": true, "alias": true, "am": true, "apply": true, "blame": true, "branch": true,
	"checkout": true, "clean": true, "clone": true, "color": true, "column": true, "commit": true,
	"commitgraph": true, "core": true, "delta": true, "diff": true, "difftool": true, "feature": true,
	"fetch": true, "filter": true, "format": true, "fsck": true, "gc": true, "gpg": true, "grep": true,
	"help": true, "i18n": true, "include": true, "includeif": true, "index": true, "init": true,
	"interactive": true, "lfs": true, "log": true, "mailmap": true, "maintenance": true, "man": true,
	"merge": true, "mergetool": true, "notes": true, "pack": true, "pager": true, "pretty": true,
	"protocol": true, "pull": true, "push": true, "rebase": true, "receive": true, "remote": true,
	"rerere": true, "revert": true, "safe": true, "sequence": true, "showbranch": true, "sparse": true,
	"stash": true, "status": true, "submodule": true, "tag": true, "trailer": true, "transfer": true,
	"user": true, "versionsort": true, "worktree": true,
}

// gitKnownVariables are, in sections that also hold a credential (a
// cookie file, a header, a mail password) or a URL's rewriting, the
// variables known to hold none, by section and name, whatever the
// subsection (http."https://host/".sslVerify).
var gitKnownVariables = map[string]map[string]bool{
	"http": {
		"sslverify": true, "sslcainfo": true, "sslcapath": true, "sslbackend": true, "sslversion": true,
		"version": true, "postbuffer": true, "lowspeedlimit": true, "lowspeedtime": true,
		"followredirects": true, "proxy": true, "maxrequests": true,
	},
	"sendemail": {
		"from": true, "to": true, "cc": true, "bcc": true, "envelopesender": true, "smtpserver": true,
		"smtpserverport": true, "smtpencryption": true, "smtpuser": true, "smtpdomain": true, "confirm": true,
		"suppresscc": true, "chainreplyto": true, "annotate": true, "thread": true, "validate": true,
		"transferencoding": true,
	},
	"url": {"insteadof": true, "pushinsteadof": true},
}

// gitKnownEntry says entry e is a variable known to hold no credential
// (gitKnownSections, gitKnownVariables); any other, a tool's own
// (jira.login, github.token) or git's that takes one (credential.helper,
// http.extraHeader, imap.pass), stays out.
func gitKnownEntry(e gitconfig.Entry) bool {
	section, _, _ := strings.Cut(e.Key, ".")
	name := e.Key[strings.LastIndexByte(e.Key, '.')+1:]
	return gitKnownSections[section] || gitKnownVariables[section][name]
}

// gitSecretName and gitSecretText say the value of a variable known to
// hold no credential holds one still: a variable named for one
// (sendemail.smtpPass, a filter's token), a header or a helper that prints
// a password, a key's value (ai.apikey = sk-…); gitSecret adds a
// credential in a URL, as claudesettings defines it for every copy (the
// usual recipe for private Go modules,
// url."https://user:TOKEN@github.com/".insteadOf; a user name alone,
// ssh://git@host/, is not one).
var (
	gitSecretName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)token|pass|secret|auth|header|cookie|key$`) })
	gitSecretText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(^|[^a-z0-9])` + claudesettings.TokenPrefixes + `|bearer|basic\s|token|password`)
	})
)

// gitSecret says text of a git configuration may hold a credential: also
// a segment of a URL's path not known to be a word or a version
// (credential.InURLPath), in a value or in the URL a subsection names
// (url."https://host/TOKEN/".insteadOf, http."https://host/TOKEN/".*).
func gitSecret(text []byte) bool {
	return isGitSecretText(text) || claudesettings.HasURLCredential(text) || credential.InURLPath(text)
}

// gitSecretHints are what every match of gitSecretText holds, in lower
// case: each of claudesettings.TokenPrefixes' (xox for xox[abpre]-, k_live_
// for [sr]k_live_), and the words.
var gitSecretHints = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "xox", "sk-ant-", "sk-proj-", "akia", "hvs.", "pypi-age", "aiza", "k_live_",
	"bearer", "basic", "token", "password",
}

// isGitSecretText is gitSecretText's match, the expression run only on
// text that holds what its every match does (credential.MayHold).
func isGitSecretText(text []byte) bool {
	return credential.MayHold(text, gitSecretHints) && gitSecretText().Match(text)
}

// gitKeyNames end in "key" but name what is no credential: the key git
// signs with (an id, or a public key's path), which signing inside needs.
var gitKeyNames = map[string]bool{"signingkey": true}

// gitSecretEntry says entry e may hold a credential: by its name, its
// key's or value's text, or, in a value (a shell alias's command), a
// credential written as a command's (a webhook's URL, curl -u
// USER:PASSWORD, --token …).
func gitSecretEntry(e gitconfig.Entry) bool {
	name := strings.ToLower(e.Key[strings.LastIndexByte(e.Key, '.')+1:])
	return gitSecretName().MatchString(name) && !gitKeyNames[name] || gitSecret([]byte(e.Key)) || gitSecret([]byte(e.Value)) ||
		claudesettings.HasCommandCredential([]byte(e.Value))
}

// gitEntryName names a configuration entry without what may be secret in
// it: a subsection that holds a URL's credential is written "…".
func gitEntryName(e gitconfig.Entry) string {
	section, rest, _ := strings.Cut(e.Key, ".")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return e.Key
	}
	sub := rest[:i]
	if gitSecret([]byte(sub)) {
		sub = "…"
	}
	return section + "." + sub + "." + rest[i+1:]
}

// gitReadFiles are the variables that name a file git reads as the user's
// (not a program it runs): copied where they lie in the home, judged.
var gitReadFiles = []string{"core.excludesfile", "core.attributesfile", "commit.template", "gpg.ssh.allowedsignersfile"}

// gitXDGFiles are the files of ~/.config/git git reads by default beside
// config, known to hold no credential.
var gitXDGFiles = []string{"ignore", "attributes"}

// maxGitConfigs bounds the configuration files followed through includes.
const maxGitConfigs = 30

// systemGitConfig is the system's git configuration, which git inside
// reads as the host's does.
const systemGitConfig = "/etc/gitconfig"

// gitView is what the sandbox gets of the user's git configuration:
// private copies of ~/.gitconfig, ~/.config/git/config, the system's
// and every file they include, of only the variables known to hold no
// credential (the others named in leftOut: "NAME in FILE"); in read,
// private copies of the files they name that git reads (excludes,
// attributes, a commit template, allowed signers) and ~/.config/git's
// ignore and attributes, each whole where the judges find no credential
// in it (gitReadHolds), else left out. Nothing else of ~/.config/git
// enters: its credentials, a helper's store, what a tool put there.
type gitView struct {
	copies  []mount.Mount
	read    []mount.Mount
	leftOut []string
}

// gitReadLimit bounds a file git reads that is copied: an excludes file,
// a commit template.
const gitReadLimit = 1 << 20

// gitReadHolds says the content b of a file git reads as the user's
// (named name) may hold a credential, as any text the sandbox is given
// of the user's is judged (textHolds: a token by its prefix, a private
// key, a password's key), and by the looser look these files had
// (a password-like word, a URL's credential): such files are patterns,
// a commit's template, public keys; a file that is not text is none of
// them. (Shown as they were, live, an OpenSSH private key in an
// excludes file and a project token in ~/.gitmessage were readable.)
func gitReadHolds(name string, b []byte) bool {
	return !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 || textHolds(name, b) || isCredentialLike(b) || claudesettings.HasURLCredential(b)
}

// gitConfigView reads the user's git configuration as git does, from the
// home or where GIT_CONFIG_GLOBAL or XDG_CONFIG_HOME (getenv) move it, and
// the system's, which lies at system (systemGitConfig inside):
// includes relative to the including file as git opens it. Git inside
// runs with neither variable, so what they name is copied where it reads
// by default (~/.gitconfig, ~/.config/git), with its relative includes
// made absolute. Only included files in the home or /etc and outside the
// project are copied or shown (the project shows its own; the rest of the
// system's holds no user's configuration).
func gitConfigView(home, checkout, system string, secrets map[string]bool, getenv func(string) string) gitView {
	var v gitView
	tilde := func(p string) string {
		if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) {
			return "~/" + rel
		}
		return p
	}
	ours := func(p string) bool {
		return !paths.Within(p, checkout) && (paths.Within(p, home) && !paths.UnderAny(p, mount.SystemDirs) || paths.Within(p, "/etc"))
	}
	copied := map[string]bool{}
	copyRead := func(path, dest, why string) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil || copied[dest] || path == dest && !ours(path) || bind.InSecret(real, secrets) {
			return
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			return
		}
		copied[dest] = true
		b, err := untrusted.ReadFile(filepath.Dir(real), filepath.Base(real), gitReadLimit)
		if err != nil || gitReadHolds(filepath.Base(real), b) {
			v.leftOut = append(v.leftOut, "all of "+tilde(path)+" (it may hold a credential)")
			return
		}
		v.read = append(v.read, mount.Mount{Kind: mount.RoBindData, Dest: dest, Content: string(b), Why: why, Role: mount.HostFiles})
	}
	userConfig := filepath.Join(home, ".gitconfig")
	xdg, insideXDG := filepath.Join(home, ".config", "git"), filepath.Join(home, ".config", "git")
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		xdg = filepath.Join(d, "git")
	}
	queue := []configFile{{userConfig, userConfig}, {filepath.Join(xdg, "config"), filepath.Join(insideXDG, "config")}}
	if global := getenv("GIT_CONFIG_GLOBAL"); filepath.IsAbs(global) {
		global = filepath.Clean(global)
		// The only global file git reads then; at its own place too, for
		// a git inside given the variable (--env).
		queue = []configFile{{global, userConfig}, {global, global}}
		if global == os.DevNull || !ours(global) {
			queue = queue[:1]
		}
		if global == os.DevNull {
			queue = nil
		}
	}
	// blank stands an empty file over the system's configuration where
	// no copy of it can be made: the file itself is shown with /etc.
	blank := func(dest string) {
		if dest == systemGitConfig {
			v.copies = append(v.copies, mount.Mount{Kind: mount.RoBindData, Dest: dest, Why: "git configuration, empty: nothing of it is known to hold no credential", Role: mount.HostFiles})
		}
	}
	// The system's, where the host has one to show it over: as the host's
	// git reads it, none under GIT_CONFIG_NOSYSTEM, the file
	// GIT_CONFIG_SYSTEM names in its place.
	if _, err := os.Lstat(system); system != "" && err == nil {
		switch named := getenv("GIT_CONFIG_SYSTEM"); {
		case gitconfig.IsTrue(getenv("GIT_CONFIG_NOSYSTEM")):
			blank(systemGitConfig)
		case filepath.IsAbs(named):
			queue = append(queue, configFile{filepath.Clean(named), systemGitConfig})
		default:
			queue = append(queue, configFile{system, systemGitConfig})
		}
	}
	seen := map[configFile]bool{}
	for i := 0; i < len(queue) && i < maxGitConfigs; i++ {
		path, dest := queue[i].path, queue[i].dest
		if seen[queue[i]] {
			continue
		}
		seen[queue[i]] = true
		b, real, err := untrusted.ReadResolved(path, 1<<20)
		if err != nil {
			if _, lerr := os.Lstat(path); lerr == nil {
				v.leftOut = append(v.leftOut, "all of "+tilde(path)+" (not a regular file of at most 1 MiB)")
			}
			blank(dest)
			continue
		}
		if bind.InSecret(real, secrets) {
			v.leftOut = append(v.leftOut, "all of "+tilde(path)+" (it lies in a credential store)")
			blank(dest)
			continue
		}
		entries, err := gitconfig.Parse(b)
		if err != nil {
			// The host's git refuses it too; inside, it reads as nothing.
			v.leftOut = append(v.leftOut, "all of "+tilde(path)+" (git cannot read it)")
			entries = nil
		}
		var kept []gitconfig.Entry
		for _, e := range entries {
			if !gitKnownEntry(e) || gitSecretEntry(e) {
				if name := gitEntryName(e) + " in " + tilde(path); !slices.Contains(v.leftOut, name) {
					v.leftOut = append(v.leftOut, name)
				}
				continue
			}
			// A relative include is the including file's neighbour.
			if inc := includePath(e); dest != path && inc != "" && !filepath.IsAbs(paths.ExpandHome(inc, home)) {
				e.Value = filepath.Join(filepath.Dir(path), inc)
			}
			kept = append(kept, e)
		}
		// Only the entries git reads, never the file as written: a comment
		// (a line turned off, a note beside a value) has no shape to look
		// for and git never reads it.
		v.copies = append(v.copies, mount.Mount{Kind: mount.RoBindData, Dest: dest, Content: string(gitconfig.Format(kept)), Why: "git configuration, a private copy of the variables known to hold no credential", Role: mount.HostFiles})
		for _, inc := range gitconfig.Includes(kept) {
			if inc = paths.ExpandHome(inc, home); !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(path), inc)
			}
			if inc = filepath.Clean(inc); ours(inc) {
				queue = append(queue, configFile{inc, inc})
			}
		}
		for _, key := range gitReadFiles {
			if p := paths.ExpandHome(gitconfig.Last(kept, key), home); filepath.IsAbs(p) {
				copyRead(filepath.Clean(p), filepath.Clean(p), "read by git ("+key+" in "+tilde(path)+"), a private copy, judged to hold no credential")
			}
		}
	}
	for _, name := range gitXDGFiles {
		copyRead(filepath.Join(xdg, name), filepath.Join(insideXDG, name), "read by git, a private copy, judged to hold no credential")
	}
	return v
}

// configFile is a git configuration file where it lies (path) and where
// git inside reads it (dest).
type configFile struct{ path, dest string }

// includePath is the file an include or includeIf entry names, "" for
// any other entry.
func includePath(e gitconfig.Entry) string {
	if e.NoValue {
		return ""
	}
	if included := gitconfig.Includes([]gitconfig.Entry{e}); len(included) == 1 {
		return included[0]
	}
	return ""
}
