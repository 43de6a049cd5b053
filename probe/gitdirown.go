package probe

import (
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/projectfiles"
	"github.com/claudebox/claudebox/untrusted"
)

// maxAnnexNotOwn bounds the entries of a git directory's annex shown
// empty one by one; past it the annex is shown empty whole (the exit
// moves aside what a session made there, so these are the user's).
const maxAnnexNotOwn = 64

// MaxGitDirEntries bounds the entries not git's own at a git directory's
// top shown empty (a mount each); past it the launch refuses.
const MaxGitDirEntries = 1024

// gitDirNotOwn are the entries that are not git's own (projectfiles.GitOwn)
// at the top of the project's git directories, of the others' (submodules',
// a folder's repositories') and of each linked worktree's (worktrees/<name>),
// in each one's info, and beside those folders in worktrees: what you or
// another program keep there, a credential helper's store
// (credential.helper 'store --file .git/credentials'), a Git client's
// settings. The sandbox sees each empty; files and directories only, as
// they are at launch. crowded is a git directory holding more than
// MaxGitDirEntries of them ("" if none): a session that padded the top
// with its own would push yours past the ones shown empty, so none is
// shown and the launch refuses.
func gitDirNotOwn(p project.Project, others []string) (entries []mount.GitEntry, leftOut []string, crowded string) {
	commons := append([]string{p.CommonDir}, others...)
	dirs := append([]string{p.GitDir}, commons...)
	for _, c := range commons {
		if c == "" {
			continue
		}
		// Past MaxWorktrees entries the launch refuses (reflogCopies).
		if found, err := untrusted.ReadDir(c, "worktrees"); err == nil && len(found) <= MaxWorktrees {
			for _, e := range found {
				full := filepath.Join(c, "worktrees", e.Name())
				switch {
				case e.IsDir():
					dirs = append(dirs, full)
				case e.Type().IsRegular():
					entries = append(entries, mount.GitEntry{Path: full})
					leftOut = append(leftOut, "all of "+full+" (not git's own: shown empty)")
				}
			}
		}
	}
	slices.Sort(dirs)
	for _, d := range slices.Compact(dirs) {
		if d == "" {
			continue
		}
		found, err := untrusted.ReadDir(d, ".")
		if err != nil {
			continue
		}
		count := 0
		notOwn := func(dir string, found []fs.DirEntry, own func(string) bool) bool {
			for _, e := range found {
				if own(e.Name()) || !e.Type().IsRegular() && !e.IsDir() {
					continue
				}
				if count++; count > MaxGitDirEntries {
					return false
				}
				full := filepath.Join(dir, e.Name())
				entries = append(entries, mount.GitEntry{Path: full, Dir: e.IsDir()})
				leftOut = append(leftOut, "all of "+full+" (not git's own: shown empty)")
			}
			return true
		}
		if !notOwn(d, found, projectfiles.GitOwn) {
			return nil, nil, d
		}
		// Named as the folder crowded, which ls -a shows (the exit audit
		// moves aside what a session made there, so what is left is
		// yours or a killed session's), where a folder shown empty whole
		// would take git's own, which the guards stand over.
		if info, err := untrusted.ReadDir(d, "info"); err == nil && !notOwn(filepath.Join(d, "info"), info, projectfiles.InfoOwn) {
			return nil, nil, filepath.Join(d, "info")
		}
		if annex, err := untrusted.ReadDir(d, "annex"); err == nil {
			dir := filepath.Join(d, "annex")
			planted := slices.DeleteFunc(annex, func(e fs.DirEntry) bool {
				return projectfiles.AnnexOwn(e.Name()) || !e.Type().IsRegular() && !e.IsDir()
			})
			if len(planted) > maxAnnexNotOwn {
				entries = append(entries, mount.GitEntry{Path: dir, Dir: true})
				leftOut = append(leftOut, "all of "+dir+" (more entries that are not git-annex's own than claudebox shows empty one by one)")
			} else if !notOwn(dir, planted, projectfiles.AnnexOwn) {
				return nil, nil, d
			}
		}
	}
	return entries, leftOut, ""
}

// maxLegacyRemotes bounds the files read in a git directory's remotes
// and branches.
const maxLegacyRemotes = 256

// legacyRemotesWithCredentials are the files of the older ways to name a
// remote in the project's git directories and the others' (remotes/<name>
// with its URL: line, branches/<name> with its URL), which git still
// reads, that hold a URL's credential (credential.InURL, InURLPath): the
// sandbox sees each empty, as the configuration's copy leaves a remote's
// token out. One that cannot be read whole, or past maxLegacyRemotes in
// its folder, is taken to hold one; past the bound the folder is shown
// empty. It also names, for the launch, what it hides.
func legacyRemotesWithCredentials(p project.Project, others []string) (hidden []mount.GitEntry, leftOut []string) {
	dirs := append([]string{p.CommonDir}, others...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, name := range []string{"remotes", "branches"} {
			folder := filepath.Join(d, name)
			found, err := untrusted.ReadDir(d, name)
			if err != nil {
				continue
			}
			if len(found) > maxLegacyRemotes {
				hidden = append(hidden, mount.GitEntry{Path: folder, Dir: true})
				leftOut = append(leftOut, "all of "+folder+" (more remotes than claudebox reads for a credential)")
				continue
			}
			for _, e := range found {
				if !e.Type().IsRegular() {
					continue
				}
				b, err := untrusted.ReadFile(folder, e.Name(), maxHook)
				if err == nil && !credential.InURL(b) && !credential.InURLPath(b) {
					continue
				}
				full := filepath.Join(folder, e.Name())
				hidden = append(hidden, mount.GitEntry{Path: full})
				leftOut = append(leftOut, "all of "+full+" (a remote's URL with a credential in it)")
			}
		}
	}
	return hidden, leftOut
}
