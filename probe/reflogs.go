package probe

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// Bounds on what is read of reflogs the sandbox may have written: the
// largest judged (one larger is shown empty), the branches' logs'
// entries looked at, the copies made of them, the worktrees looked in. Past the branches' bounds their
// folder is shown empty (a tmpfs), so that a sandbox's thousand planted
// logs neither slow the next launch nor hide the user's among them; past
// the worktrees', the rest are not read.
const (
	maxReflog         = 16 << 20
	maxBranchEntries  = 4096
	maxBranchCopies   = 16
	maxWorktreesRead  = 16
	branchLogsDirName = "logs/refs/heads"
)

// reflogCopies are the private copies of the project's reflogs that hold
// a credential in a URL of a message (git pull https://user:TOKEN@host/x
// records its command as typed; git clone and fetch write the URL
// without it, as FETCH_HEAD does, but other tools may not): logs/HEAD and
// FETCH_HEAD of each worktree's git directory, each local branch's log
// (their folder hidden whole past the bounds above). Only a message is
// judged, never a line's identity (an email's @). Read beneath each git
// directory with no link followed, as the sandbox may have written any of
// them. It also names, for the launch, what each copy leaves out.
func reflogCopies(p project.Project) (copies []mount.Reflog, leftOut []string) {
	if p.GitDir == "" {
		return nil, nil
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
	dirs := []string{p.GitDir}
	if p.CommonDir != "" && p.CommonDir != p.GitDir {
		dirs = append(dirs, p.CommonDir)
	}
	if p.CommonDir != "" {
		if entries, err := untrusted.ReadDir(p.CommonDir, "worktrees"); err == nil {
			for _, e := range entries[:min(len(entries), maxWorktreesRead)] {
				if d := filepath.Join(p.CommonDir, "worktrees", e.Name()); e.IsDir() && d != p.GitDir {
					dirs = append(dirs, d)
				}
			}
		}
	}
	for _, d := range dirs {
		judge(d, "logs/HEAD")
		judge(d, "FETCH_HEAD")
	}
	if p.CommonDir == "" {
		return copies, leftOut
	}
	files, whole := branchLogs(p.CommonDir, branchLogsDirName, new(int))
	before := len(copies)
	for _, f := range files {
		if judge(p.CommonDir, f) && len(copies)-before > maxBranchCopies {
			whole = false
			break
		}
	}
	if !whole {
		dir := filepath.Join(p.CommonDir, branchLogsDirName)
		copies = append(copies[:before], mount.Reflog{Path: dir, Dir: true})
		leftOut = append(leftOut[:before], "the branches' reflogs in "+dir+" (more than claudebox reads for a credential)")
	}
	return copies, leftOut
}

// branchLogs lists the files beneath dir/name, a folder of branches'
// logs, and whether it looked at all of it: at most maxBranchEntries
// entries, seen counting them.
func branchLogs(dir, name string, seen *int) (files []string, whole bool) {
	entries, err := untrusted.ReadDir(dir, name)
	if err != nil {
		return nil, errors.Is(err, fs.ErrNotExist)
	}
	for _, e := range entries {
		if *seen++; *seen > maxBranchEntries {
			return files, false
		}
		rel := path.Join(name, e.Name())
		switch {
		case e.IsDir():
			sub, ok := branchLogs(dir, rel, seen)
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
// its URLs (credential.WithoutURL), and whether one was taken out.
func reflogWithout(b []byte) ([]byte, bool) {
	var out []byte
	done := 0
	for at := 0; at < len(b); {
		end := bytes.IndexByte(b[at:], '\n') + 1
		if end == 0 {
			end = len(b) - at
		}
		line := b[at : at+end]
		if i := bytes.IndexByte(line, '\t'); i >= 0 && userBeforeAt(line[i:]) && credential.InURL(line[i:]) {
			kept, _ := credential.WithoutURL(line[i:])
			out = append(append(out, b[done:at+i]...), kept...)
			done = at + end
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

// maxHooks bounds the hooks read; maxHook is the largest judged.
const (
	maxHooks = 256
	maxHook  = 1 << 20
)

// hooksWithCredentials are the git hooks of the project's repository
// (its common directory's hooks, not the samples) with a credential
// written in them, as a ~/bin script's is judged (a Slack webhook's URL a
// post-commit posts to, a token a pre-push exports): the sandbox, which
// sees the hooks read-only, sees each empty. One that cannot be read
// whole, or past maxHooks, is taken to hold one. It also names, for the
// launch, what it hides.
func hooksWithCredentials(p project.Project) (hidden, leftOut []string) {
	if p.CommonDir == "" {
		return nil, nil
	}
	dir := filepath.Join(p.CommonDir, "hooks")
	entries, err := untrusted.ReadDir(p.CommonDir, "hooks")
	if err != nil {
		return nil, nil
	}
	for i, e := range entries {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) == ".sample" {
			continue
		}
		if i < maxHooks {
			if b, err := untrusted.ReadFile(dir, e.Name(), maxHook); err == nil && !credential.InScript(b) {
				continue
			}
		}
		full := filepath.Join(dir, e.Name())
		hidden = append(hidden, full)
		leftOut = append(leftOut, "all of "+full+" (a git hook with a credential written in it)")
	}
	return hidden, leftOut
}
