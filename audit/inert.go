package audit

import (
	"strings"

	"github.com/claudebox/claudebox/gitconfig"
)

// inertKeys are the keys of a repository's config that git never executes
// and that send it nowhere the repository does not already name, by
// section and name: what git init, git clone (with --recurse-submodules,
// --sparse, a partial clone) and git lfs write, the remotes, the branches,
// the identity. Everything else, read from git's documentation as running
// a command or redirecting git (core.fsmonitor, core.hooksPath,
// core.sshCommand, core.worktree, pagers and editors, aliases, filters,
// textconv, credential helpers, includes, a submodule's update command, …),
// or not known, makes the config a finding: a list of what is inert fails
// closed where a list of what runs would not.
var inertKeys = map[string][]string{
	"core":       {"repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase", "precomposeunicode", "symlinks", "sparsecheckout", "sparsecheckoutcone"},
	"extensions": {"objectformat", "worktreeconfig", "refstorage", "partialclone"},
	"remote":     {"url", "pushurl", "fetch", "push", "tagopt", "mirror", "prune", "prunetags", "promisor", "partialclonefilter"},
	"branch":     {"remote", "merge", "rebase", "pushremote", "description"},
	"submodule":  {"url", "active"},
	"user":       {"name", "email"},
	"pull":       {"rebase", "ff"},
	"lfs":        {"repositoryformatversion"},
}

// inertConfig says whether the config file name in the git directory fd
// sets only inert keys: a repository cloned or made inside keeps it. One
// that cannot be read, or that git would refuse, is not.
func inertConfig(fd int, name string) bool {
	b, err := readAt(fd, name, 1<<20)
	if err != nil {
		return false
	}
	entries, err := gitconfig.Parse(b)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !inertKey(e.Key, e.Value) {
			return false
		}
	}
	return true
}

// inertKey says whether key (section[.subsection].name) is inert with
// value. A URL of the form <transport>::<address> runs git-remote-<transport>
// (ext:: runs any command): not inert; nor a ref store other than files.
func inertKey(key, value string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest[strings.LastIndex(rest, ".")+1:]
	for _, n := range inertKeys[section] {
		if n == name {
			switch name {
			case "url", "pushurl":
				return !strings.Contains(value, "::")
			case "refstorage":
				// Refs in reftable tables are out of the walk's sight
				// (a replace ref among them), loose and packed ones are not.
				return value == "files"
			}
			return true
		}
	}
	return false
}
