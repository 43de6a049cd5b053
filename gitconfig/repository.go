package gitconfig

import (
	"slices"
	"strings"

	"github.com/claudebox/claudebox/internal/credential"
)

// RepositoryCopy is what a sandbox sees of a repository's own
// configuration file (.git/config, a worktree's config.worktree, a
// submodule's): the variables known harmless that git needs to work in the
// repository, and nothing else. Users keep credentials there (git clone
// https://oauth2:TOKEN@… keeps the token in the remote's URL; an
// http.extraHeader, a url.<base>.insteadOf, a credential helper, an
// include of a file elsewhere), so what is not on the list stays out,
// whatever it holds: includes, credentials, http.*, url.*, aliases, hooks,
// filters (but Git LFS's own) and every tool's own section. A URL kept
// loses its user and password (an ssh URL keeps its user, the login), its
// query and fragment and a path's segment that may be a token (a file://
// URL's aside). A file git cannot read is empty:
// nothing of it is shown.
func RepositoryCopy(content []byte) []byte {
	entries, err := Parse(content)
	if err != nil {
		return nil
	}
	var kept []Entry
	for _, e := range entries {
		if e, ok := repositoryEntry(e); ok {
			kept = append(kept, e)
		}
	}
	return Format(kept)
}

// repositoryCore are the core variables that say how the repository is
// laid out and its files are checked out: its format, where its work tree
// is, case and Unicode folding, links, modes, line endings, a sparse
// checkout.
var repositoryCore = map[string]bool{
	"repositoryformatversion": true, "bare": true, "worktree": true, "filemode": true, "logallrefupdates": true,
	"ignorecase": true, "precomposeunicode": true, "symlinks": true, "sparsecheckout": true, "sparsecheckoutcone": true,
	"autocrlf": true, "eol": true, "safecrlf": true,
}

// repositoryVariables are, by section, the variables kept of a
// subsection's (a remote's, a branch's, a submodule's); a name among
// urlVariables is a URL, kept without its credentials.
var repositoryVariables = map[string]map[string]bool{
	// A remote's URLs and refspecs, and a partial clone's promisor and
	// filter; not uploadpack, receivepack (commands) or proxy (a
	// password).
	"remote": {
		"url": true, "pushurl": true, "fetch": true, "push": true, "mirror": true, "tagopt": true, "prune": true,
		"prunetags": true, "promisor": true, "partialclonefilter": true,
	},
	// A branch's upstream; not its description (free text).
	"branch": {"remote": true, "pushremote": true, "merge": true, "rebase": true},
	// Not update, which may be a command (!…).
	"submodule": {"url": true, "active": true},
}

// urlVariables are the variables whose value is a URL, or may be one
// where a remote's name would do: git push -u URL writes the URL, as typed,
// into branch.<name>.remote, token and all, and a push's remote
// (branch.<name>.pushRemote, remote.pushDefault) takes one too.
var urlVariables = map[string]bool{"url": true, "pushurl": true, "remote": true, "pushremote": true, "pushdefault": true}

// lfsFilter is Git LFS's filter as git lfs install --local writes it
// (with --skip-smudge too): where .gitattributes names it, git without it
// takes every file LFS checked out for changed.
var lfsFilter = map[string][]string{
	"clean":    {"git-lfs clean -- %f"},
	"smudge":   {"git-lfs smudge -- %f", "git-lfs smudge --skip -- %f"},
	"process":  {"git-lfs filter-process", "git-lfs filter-process --skip"},
	"required": {"true"},
}

// isUUID says s is a UUID as git annex init writes it: lower-case hex,
// in groups of 8, 4, 4, 4 and 12.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isDigits says s is one or more decimal digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// repositoryEntry says whether e is kept in a repository's copy, and what
// it keeps of its value.
func repositoryEntry(e Entry) (Entry, bool) {
	section, rest, _ := strings.Cut(e.Key, ".")
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch {
	case section == "core" && sub == "":
		return e, repositoryCore[name]
	// Git refuses a repository with an extension it does not know
	// (objectformat, worktreeconfig, refstorage, partialclone, …): every
	// one crosses, for git inside to read the repository as the host's
	// does.
	case section == "extensions" && sub == "":
		return e, true
	// Who commits, and whether and with which key commits and tags are
	// signed (a key's id, a public key or its path: the signature itself
	// goes through --with-gpg's or --with-ssh's agent).
	case section == "user" && sub == "":
		return e, name == "name" || name == "email" || name == "signingkey"
	case (section == "commit" || section == "tag") && sub == "":
		return e, name == "gpgsign"
	case section == "gpg" && sub == "":
		return e, name == "format"
	// How git pull reconciles, and where git push goes by default: without
	// them, a pull of a diverged branch fails inside.
	case section == "pull" && sub == "":
		return e, name == "rebase" || name == "ff"
	case section == "remote" && sub == "":
		if name != "pushdefault" {
			return e, false
		}
		return withoutCredentialsKept(e)
	case section == "filter" && sub == "lfs":
		return e, !e.NoValue && slices.Contains(lfsFilter[name], e.Value)
	// git-annex's repository identity: without its uuid and version,
	// every git annex command inside says the repository is not
	// initialized. Not annex's other variables, some of them commands
	// (annex.freezecontent-command, annex.secure-erase-command).
	case section == "annex" && sub == "":
		return e, name == "uuid" && isUUID(e.Value) || name == "version" && len(e.Value) <= 2 && isDigits(e.Value)
	// The submodules active by path (submodule.active = lib/*).
	case section == "submodule" && sub == "":
		return e, name == "active"
	// A subsection that is a URL (one a user named a remote by) may hold
	// a credential.
	case sub == "" || !repositoryVariables[section][name] || strings.Contains(sub, "://"):
		return e, false
	case urlVariables[name]:
		return withoutCredentialsKept(e)
	}
	return e, true
}

// withoutCredentialsKept is e, whose value is a URL or a remote's name,
// with its value withoutCredentials, and whether it is kept.
func withoutCredentialsKept(e Entry) (Entry, bool) {
	if e.NoValue {
		return e, true
	}
	url, ok := withoutCredentials(e.Value)
	e.Value = url
	return e, ok
}

// withoutCredentials is a URL git fetches from without what may be a
// credential in it: its user and password (a scheme's, scheme://…@host/),
// the ssh user aside, its query and fragment and each segment of its path
// not known to be a word or a version (credential.WithoutURLPath), a
// file:// URL's aside. A
// local path or scp-like address (git@host:path) is as it was. It reports
// false for a value it cannot read as one of these: a password in an
// scp-like address (user:password@host:path), an @ in a URL's path (a
// password holding a slash, which ends the host where git reads it, as
// where any other reader does, is then in the path), a port that is no
// number, a line break.
func withoutCredentials(url string) (string, bool) {
	if strings.ContainsAny(url, "\n\r") {
		return "", false
	}
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		// A path, or user@host:path, whose user is the ssh login.
		if at := strings.LastIndexByte(url, '@'); at >= 0 && strings.ContainsRune(url[:at], ':') {
			return "", false
		}
		return url, true
	}
	scheme = strings.ToLower(scheme)
	for _, c := range scheme {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return "", false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, path := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		user, _, _ := strings.Cut(authority[:at], ":")
		authority = authority[at+1:]
		if ssh := scheme == "ssh" || scheme == "git+ssh" || scheme == "ssh+git"; ssh && user != "" {
			authority = user + "@" + authority
		}
	}
	// An @ past the authority is a password holding /, ? or #, where the
	// authority ends for git as for any other reader: looked for before the
	// query and fragment are cut, which would leave the password's start.
	// A port that is no number is the start of a password whose rest a #
	// made a comment of (url = https://u:SECRET#x@host/).
	if authority == "" && scheme != "file" || strings.ContainsRune(path, '@') || !numericPort(authority) {
		return "", false
	}
	// A query or fragment may carry a token over any transport (a remote
	// helper's: persistent-https://…?token=, s3://…?secret=); a local
	// file's name may hold either.
	if scheme == "file" {
		return scheme + "://" + authority + path, true
	}
	path, _, _ = strings.Cut(path, "?")
	path, _, _ = strings.Cut(path, "#")
	// A registry may take its token as a segment of the path
	// (https://host/TOKEN/repo.git): one not known to be a word or a
	// version is a *, as a reflog's copy writes it.
	kept, _ := credential.WithoutURLPath([]byte(scheme + "://" + authority + path))
	return string(kept), true
}

// numericPort says whether an authority's port, if it names one, is a
// number (an IPv6 address's colons are within its brackets).
func numericPort(authority string) bool {
	i := strings.LastIndexByte(authority, ':')
	if i < 0 || i < strings.LastIndexByte(authority, ']') {
		return true
	}
	for _, c := range authority[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
