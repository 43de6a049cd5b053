package projectfiles

import "strings"

// gitOwnEntries are the entries git and the tools that share its
// directory keep at a git directory's top (gitrepository-layout, git
// 2.39; a linked worktree's locked; what git fsck --lost-found recovers;
// Git LFS's lfs, git-annex's annex, git-svn's svn, gitk's cache).
var gitOwnEntries = map[string]bool{
	"HEAD": true, "config": true, "config.worktree": true, "objects": true, "refs": true, "packed-refs": true,
	"reftable": true, "index": true, "logs": true, "hooks": true, "info": true, "branches": true, "remotes": true,
	"modules": true, "worktrees": true, "shallow": true, "commondir": true, "gitdir": true, "description": true,
	"locked": true, "lost-found": true,
	"rebase-merge": true, "rebase-apply": true, "sequencer": true, "rr-cache": true, "svn": true, "lfs": true,
	"annex": true, "gitk.cache": true, "gc.pid": true, "gc.log": true, "fsmonitor--daemon": true,
	"fsmonitor--daemon.ipc": true, "filter-repo": true, "MERGE_MODE": true, "MERGE_RR": true,
	"MERGE_AUTOSTASH": true, "BISECT_LOG": true, "BISECT_START": true, "BISECT_TERMS": true,
	"BISECT_NAMES": true, "BISECT_EXPECTED_REV": true, "BISECT_ANCESTORS_OK": true, "BISECT_FIRST_PARENT": true,
	"BISECT_RUN": true, "EDIT_DESCRIPTION": true, "NOTES_MERGE_PARTIAL": true, "NOTES_MERGE_WORKTREE": true,
}

// GitOwn says name, at a git directory's top, is git's own: one of
// gitOwnEntries, a ref (FETCH_HEAD, ORIG_HEAD, AUTO_MERGE,
// NOTES_MERGE_REF), a message being edited (COMMIT_EDITMSG, MERGE_MSG),
// a shared index or a lock. The one list of them: the launch shows
// nothing else there (package probe), and every name the exit audit
// judges there by what git does with it is one (package audit's test).
func GitOwn(name string) bool {
	return gitOwnEntries[name] || strings.HasSuffix(name, "_HEAD") || strings.HasSuffix(name, "_MSG") ||
		strings.HasSuffix(name, "_EDITMSG") || strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, "sharedindex.") ||
		name == "AUTO_MERGE" || name == "NOTES_MERGE_REF"
}

// InfoOwn says name, in a git directory's info, is git's own
// (gitrepository-layout: the patterns of exclude, attributes and
// sparse-checkout, grafts, update-server-info's refs) or its lock. The
// one list: the launch shows nothing else there, and the exit moves aside
// what else a session made there.
func InfoOwn(name string) bool {
	name = strings.TrimSuffix(name, ".lock")
	return name == "exclude" || name == "attributes" || name == "sparse-checkout" || name == "grafts" || name == "refs"
}

// annexHarmless are the entries git-annex keeps in a git directory's
// annex that hold no credential (Annex/Locations.hs): the annexed
// contents, their temporary and bad copies, the journal, the index and
// views of the git-annex branch, its databases, transfers and states, and
// their locks and logs. Not its credential cache (creds, where
// initremote keeps a special remote's S3 or WebDAV keys), the webapp's
// TLS key, nor its ssh connection cache (ssh: a live connection's control
// socket runs commands on the remote as you).
var annexHarmless = map[string]bool{
	"objects": true, "tmp": true, "othertmp": true, "misctmp": true, "watchtmp": true, "bad": true, "keysdb": true,
	"keys": true, "fsck": true, "fsckresults": true, "export": true, "export.ex": true, "cidsdb": true, "cid": true,
	"schedulestate": true, "feedstate": true, "merge": true, "transfer": true, "journal": true, "journal-private": true,
	"index": true, "viewindex": true, "viewlog": true, "mergedrefs": true, "ignoredrefs": true, "daemon.pid": true,
	"pidlock": true, "daemon.status": true, "webapp.html": true, "url": true, "config.tmp": true, "remotes": true,
	"sentinal": true, "certificate.pem": true, "import": true, "adjust": true, "upgrade": true,
}

// AnnexOwn says name, in a git directory's annex, is git-annex's and
// holds no credential: one of annexHarmless, a lock, a log (rotated too),
// a cache, a numbered list of unused keys. The one list of them: the
// launch shows anything else there empty (package probe), and the exit
// moves aside anything else a session made there (package audit).
func AnnexOwn(name string) bool {
	base, _, _ := strings.Cut(name, ".log.")
	return annexHarmless[name] || strings.HasSuffix(name, ".lck") || strings.HasSuffix(name, ".log") || base != name ||
		strings.HasSuffix(name, ".cache") || strings.HasSuffix(name, ".upl") || strings.HasSuffix(name, "unused")
}
