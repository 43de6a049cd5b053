package probe

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// gitOwnEntries are the entries git and the tools that share its
// directory keep at a git directory's top (gitrepository-layout, git
// 2.39; Git LFS's lfs, git-annex's annex, git-svn's svn, gitk's cache).
var gitOwnEntries = map[string]bool{
	"HEAD": true, "config": true, "config.worktree": true, "objects": true, "refs": true, "packed-refs": true,
	"reftable": true, "index": true, "logs": true, "hooks": true, "info": true, "branches": true, "remotes": true,
	"modules": true, "worktrees": true, "shallow": true, "commondir": true, "gitdir": true, "description": true,
	"rebase-merge": true, "rebase-apply": true, "sequencer": true, "rr-cache": true, "svn": true, "lfs": true,
	"annex": true, "gitk.cache": true, "gc.pid": true, "gc.log": true, "fsmonitor--daemon": true,
	"fsmonitor--daemon.ipc": true, "filter-repo": true, "MERGE_MODE": true, "MERGE_RR": true,
	"MERGE_AUTOSTASH": true, "BISECT_LOG": true, "BISECT_START": true, "BISECT_TERMS": true,
	"BISECT_NAMES": true, "BISECT_EXPECTED_REV": true, "BISECT_ANCESTORS_OK": true, "BISECT_FIRST_PARENT": true,
	"BISECT_RUN": true, "EDIT_DESCRIPTION": true, "NOTES_MERGE_PARTIAL": true, "NOTES_MERGE_WORKTREE": true,
}

// gitOwn says name, at a git directory's top, is git's own: one of
// gitOwnEntries, a ref (FETCH_HEAD, ORIG_HEAD, AUTO_MERGE,
// NOTES_MERGE_REF), a message being edited (COMMIT_EDITMSG, MERGE_MSG),
// a shared index or a lock.
func gitOwn(name string) bool {
	return gitOwnEntries[name] || strings.HasSuffix(name, "_HEAD") || strings.HasSuffix(name, "_MSG") ||
		strings.HasSuffix(name, "_EDITMSG") || strings.HasSuffix(name, ".lock") || strings.HasPrefix(name, "sharedindex.") ||
		name == "AUTO_MERGE" || name == "NOTES_MERGE_REF"
}

// MaxGitDirEntries bounds the entries not git's own at a git directory's
// top shown empty (a mount each); past it the launch refuses.
const MaxGitDirEntries = 1024

// gitDirNotOwn are the entries at the top of the project's git
// directories that are not git's own (gitOwn): what you or another
// program keep there, a credential helper's store (credential.helper
// 'store --file .git/credentials'), a Git client's settings. The sandbox
// sees each empty; files and directories only, as they are at launch.
// crowded is a git directory holding more than MaxGitDirEntries of them
// ("" if none): a session that padded the top with its own would push
// yours past the ones shown empty, so none is shown and the launch
// refuses.
func gitDirNotOwn(p project.Project) (entries []mount.GitEntry, leftOut []string, crowded string) {
	for _, d := range slices.Compact([]string{p.GitDir, p.CommonDir}) {
		if d == "" {
			continue
		}
		found, err := untrusted.ReadDir(d, ".")
		if err != nil {
			continue
		}
		for _, e := range found {
			if gitOwn(e.Name()) {
				continue
			}
			full := filepath.Join(d, e.Name())
			if !e.Type().IsRegular() && !e.IsDir() {
				continue
			}
			if len(entries) == MaxGitDirEntries {
				return nil, nil, d
			}
			entries = append(entries, mount.GitEntry{Path: full, Dir: e.IsDir()})
			leftOut = append(leftOut, "all of "+full+" (not git's own: shown empty)")
		}
	}
	return entries, leftOut, ""
}
