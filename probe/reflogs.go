package probe

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// Bounds on what is read of reflogs the sandbox may have written: the
// largest judged (one larger is shown empty), the refs' logs' entries
// looked at and the copies made of them in each repository. Past the
// refs' bounds their folder is shown empty (a tmpfs), so that a
// sandbox's thousand planted logs neither slow the next launch nor hide
// the user's among them.
const (
	maxReflog        = 16 << 20
	maxRefLogEntries = 4096
	maxRefLogCopies  = 16
	refLogsDirName   = "logs/refs"
)

// MaxWorktrees bounds the entries of a repository's worktrees folder
// whose reflogs the launch reads; past it the launch refuses: a session
// that planted folders there by the dozen pushed a linked worktree's
// reflog, holding the token of the host's git pull there, past those
// read (the first 16, in directory order). Each with a gitdir file also
// costs the launch its guards: 128 took bwrap 2 s to mount, 250 9 s.
const MaxWorktrees = 128

// reflogCopies are the private copies of the reflogs that hold a
// credential in a URL of a message (git pull https://user:TOKEN@host/x
// records its command as typed, in the log of each ref it moves: HEAD's,
// a branch's, a remote-tracking branch's it was given; git clone and
// fetch write the URL without it, as FETCH_HEAD does, but other tools may
// not), in the project's repository and in others, the common git
// directories of its submodules and a folder's repositories: logs/HEAD
// and FETCH_HEAD of each worktree's git directory, every ref's log
// (their folder hidden whole past the bounds above). Only a message is
// judged, never a line's identity (an email's @). Read beneath each git
// directory with no link followed, as the sandbox may have written any of
// them. It also names, for the launch, what each copy leaves out, and
// a worktrees folder holding more than MaxWorktrees entries (then nothing
// else).
func reflogCopies(p project.Project, others []string) (copies []mount.Reflog, leftOut []string, crowded string) {
	if p.GitDir == "" && len(others) == 0 {
		return nil, nil, ""
	}
	judge := func(dir, name string) bool {
		full := filepath.Join(dir, name)
		b, err := untrusted.ReadFile(dir, name, maxReflog)
		if errors.Is(err, untrusted.ErrTooLarge) {
			// Not judged, so shown empty: one the sandbox grew past the
			// bound held the token a later git pull on the host wrote.
			copies = append(copies, mount.Reflog{Path: full})
			leftOut = append(leftOut, "all of "+full+" (a reflog larger than claudebox reads for a credential)")
			return true
		}
		if err != nil {
			return false
		}
		kept, ok := reflogWithout(b)
		if ok {
			copies = append(copies, mount.Reflog{Path: full, Content: string(kept)})
			leftOut = append(leftOut, "a URL's credential in "+full+" (git's record of a command, as typed)")
		}
		return ok
	}
	commons := others
	if p.CommonDir != "" {
		commons = append([]string{p.CommonDir}, others...)
	}
	dirs := slices.Compact([]string{p.GitDir})
	for _, c := range commons {
		dirs = append(dirs, c)
		if entries, err := untrusted.ReadDir(c, "worktrees"); err == nil {
			if len(entries) > MaxWorktrees {
				return nil, nil, filepath.Join(c, "worktrees")
			}
			for _, e := range entries {
				if e.IsDir() {
					dirs = append(dirs, filepath.Join(c, "worktrees", e.Name()))
				}
			}
		}
	}
	slices.Sort(dirs)
	for _, d := range slices.Compact(dirs) {
		if d == "" {
			continue
		}
		judge(d, "logs/HEAD")
		judge(d, "FETCH_HEAD")
	}
	for _, c := range commons {
		files, whole := refLogs(c, refLogsDirName, new(int))
		before := len(copies)
		for _, f := range files {
			if judge(c, f) && len(copies)-before > maxRefLogCopies {
				whole = false
				break
			}
		}
		if !whole {
			dir := filepath.Join(c, refLogsDirName)
			copies = append(copies[:before], mount.Reflog{Path: dir, Dir: true})
			leftOut = append(leftOut[:before], "the refs' reflogs in "+dir+" (more than claudebox reads for a credential)")
		}
	}
	return copies, leftOut, ""
}

// otherGitDirs are the common git directories of the repositories beside
// the project's own that the sandbox sees and the host's git runs in:
// its submodules' (.git/modules/<name>) and those of the repositories
// below a folder of them, each found by the guard on its configuration.
func otherGitDirs(p project.Project, guards []mount.Guard) []string {
	var dirs []string
	for _, g := range guards {
		if dir := filepath.Dir(g.Path); g.GitConfig && g.Exists && filepath.Base(g.Path) == "config" && dir != p.CommonDir && dir != p.GitDir {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// refLogs lists the files beneath dir/name, a folder of refs' logs, and
// whether it looked at all of it: at most maxRefLogEntries entries, seen
// counting them.
func refLogs(dir, name string, seen *int) (files []string, whole bool) {
	entries, err := untrusted.ReadDir(dir, name)
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist)
	}
	for _, e := range entries {
		if *seen++; *seen > maxRefLogEntries {
			return files, false
		}
		rel := path.Join(name, e.Name())
		switch {
		case e.IsDir():
			sub, ok := refLogs(dir, rel, seen)
			files = append(files, sub...)
			if !ok {
				return files, false
			}
		case e.Type().IsRegular():
			files = append(files, rel)
		}
	}
	return files, true
}

// reflogWithout is a reflog's text with each line's message (what follows
// its first tab, as FETCH_HEAD's note does) without the credentials of
// its URLs (credential.WithoutURL) and the segments of their paths that
// may be tokens (credential.WithoutURLPath: git pull
// https://host/TOKEN/x.git writes its URL as typed, git fetch and clone
// without its user and password only), and whether one was taken out.
func reflogWithout(b []byte) ([]byte, bool) {
	var out []byte
	done := 0
	for at := 0; at < len(b); {
		end := bytes.IndexByte(b[at:], '\n') + 1
		if end == 0 {
			end = len(b) - at
		}
		line := b[at : at+end]
		if i := bytes.IndexByte(line, '\t'); i >= 0 {
			msg := line[i:]
			kept, user := msg, userBeforeAt(msg) && credential.InURL(msg)
			if user {
				kept, _ = credential.WithoutURL(kept)
			}
			if kept, path := credential.WithoutURLPath(kept); user || path {
				out = append(append(out, b[done:at+i]...), kept...)
				done = at + end
			}
		}
		at += end
	}
	if out == nil {
		return b, false
	}
	return append(out, b[done:]...), true
}

// userBeforeAt says a message has an @ with a colon before it in the same
// word, as every URL's credential has (https://user:pw@, https://TOKEN@,
// user:pw@host): most have none (HEAD@{1}), and the expression that
// reads a URL costs microseconds a line.
func userBeforeAt(msg []byte) bool {
	for i, c := range msg {
		if c != '@' {
			continue
		}
		word := msg[:i]
		if j := bytes.LastIndexAny(word, " \t\"'"); j >= 0 {
			word = word[j+1:]
		}
		if bytes.IndexByte(word, ':') >= 0 {
			return true
		}
	}
	return false
}

// maxHooks bounds the entries of a repository's hooks read; maxHook is
// the largest judged.
const (
	maxHooks = 256
	maxHook  = 1 << 20
)

// hooksWithCredentials are the git hooks of the project's repository and
// of the others' (their common directories' hooks, not the samples) with
// a credential written in them, as a ~/bin script's is judged (a Slack
// webhook's URL a post-commit posts to, a token a pre-push exports, a
// registry's token in its URL's path): the sandbox, which sees the hooks
// read-only, sees each empty. What a hook runs from a folder beside it
// (a hook manager's pre-commit.d/) is judged as a hook is, at any depth.
// One that cannot be read whole is taken to hold one; past maxHooks
// entries the repository's hooks are shown empty whole. It also names,
// for the launch, what it hides.
func hooksWithCredentials(p project.Project, others []string) (hidden []mount.GitEntry, leftOut []string) {
	commons := others
	if p.CommonDir != "" {
		commons = append([]string{p.CommonDir}, others...)
	}
	for _, c := range commons {
		seen, before := 0, len(hidden)
		var judge func(rel string) bool
		judge = func(rel string) bool {
			dir := filepath.Join(c, rel)
			entries, err := untrusted.ReadDir(c, rel)
			if err != nil {
				return true
			}
			for _, e := range entries {
				if seen++; seen > maxHooks {
					return false
				}
				if e.IsDir() {
					if !judge(path.Join(rel, e.Name())) {
						return false
					}
					continue
				}
				if !e.Type().IsRegular() || filepath.Ext(e.Name()) == ".sample" {
					continue
				}
				if b, err := untrusted.ReadFile(dir, e.Name(), maxHook); err == nil && !credential.InScript(b) {
					continue
				}
				full := filepath.Join(dir, e.Name())
				hidden = append(hidden, mount.GitEntry{Path: full})
				leftOut = append(leftOut, "all of "+full+" (a git hook with a credential written in it)")
			}
			return true
		}
		if !judge("hooks") {
			full := filepath.Join(c, "hooks")
			hidden = append(hidden[:before], mount.GitEntry{Path: full, Dir: true})
			leftOut = append(leftOut[:before], "all of "+full+" (more git hooks than claudebox reads for a credential)")
		}
	}
	return hidden, leftOut
}
