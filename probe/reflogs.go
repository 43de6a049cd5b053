package probe

import (
	"bytes"
	"path"
	"path/filepath"
	"slices"

	"github.com/claudebox/claudebox/internal/credential"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// maxReflog is the largest reflog judged; maxReflogs bounds how many of a
// repository's branches' logs are read.
const (
	maxReflog  = 16 << 20
	maxReflogs = 4096
)

// reflogCopies are the private copies of the project's reflogs that hold
// a credential in a URL of a message (git pull https://user:TOKEN@host/x
// records its command as typed; git clone and fetch write the URL
// without it, as FETCH_HEAD does, but other tools may not): logs/HEAD and
// FETCH_HEAD of each worktree's git directory, each local branch's log.
// Only a message is judged, never a line's identity (an email's @). Read
// beneath each git directory with no link followed, as the sandbox may
// have written any of them. It also names, for the launch, what each
// copy leaves out.
func reflogCopies(p project.Project) (copies []mount.Reflog, leftOut []string) {
	if p.GitDir == "" {
		return nil, nil
	}
	var files [][2]string // a git directory, a file beneath it
	dirs := []string{p.GitDir}
	if p.CommonDir != "" && p.CommonDir != p.GitDir {
		dirs = append(dirs, p.CommonDir)
	}
	if p.CommonDir != "" {
		if entries, err := untrusted.ReadDir(p.CommonDir, "worktrees"); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					dirs = append(dirs, filepath.Join(p.CommonDir, "worktrees", e.Name()))
				}
			}
		}
	}
	for _, d := range slices.Compact(dirs) {
		files = append(files, [2]string{d, "logs/HEAD"}, [2]string{d, "FETCH_HEAD"})
	}
	if p.CommonDir != "" {
		for _, f := range branchLogs(p.CommonDir, "logs/refs/heads", 0) {
			files = append(files, [2]string{p.CommonDir, f})
		}
	}
	for _, f := range files {
		b, err := untrusted.ReadFile(f[0], f[1], maxReflog)
		if err != nil {
			continue
		}
		if kept, ok := reflogWithout(b); ok {
			full := filepath.Join(f[0], f[1])
			copies = append(copies, mount.Reflog{Path: full, Content: string(kept)})
			leftOut = append(leftOut, "a URL's credential in "+full+" (git's record of a command, as typed)")
		}
	}
	return copies, leftOut
}

// branchLogs lists the files beneath dir/name, a directory of branches'
// logs, up to maxReflogs in all.
func branchLogs(dir, name string, found int) []string {
	entries, err := untrusted.ReadDir(dir, name)
	if err != nil {
		return nil
	}
	var files []string
	for _, e := range entries {
		if found+len(files) >= maxReflogs {
			break
		}
		rel := path.Join(name, e.Name())
		switch {
		case e.IsDir():
			files = append(files, branchLogs(dir, rel, found+len(files))...)
		case e.Type().IsRegular():
			files = append(files, rel)
		}
	}
	return files
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
