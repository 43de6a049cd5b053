package evalrun

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/untrusted"
)

// What the host copies out of a run, all of which the sandbox wrote: a
// file over fileLimit, or beyond totalLimit, or a tree deeper or larger
// than these, is named in the metrics instead of copied.
const (
	fileLimit  = 64 << 20
	totalLimit = 512 << 20
	depthLimit = 64
	entryLimit = 100_000
	// patchLimit is the largest file whose lines changes.patch shows.
	patchLimit = 8 << 20
)

// found is what the workspace holds at a path after the run.
type found struct {
	link   bool
	target string
	size   int64
	sum    [32]byte
	mode   fs.FileMode
}

// skipped is something the run left that is not copied out, and why.
type skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// scan walks a tree the sandbox wrote, never following a link, and
// returns its regular files and symlinks by relative path, with what it
// could not read.
func scan(root string) (map[string]found, []skipped) {
	out := map[string]found{}
	var skips []skipped
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		if depth > depthLimit {
			skips = append(skips, skipped{rel, "nested too deep"})
			return
		}
		entries, err := untrusted.ReadDir(root, rel)
		if err != nil {
			skips = append(skips, skipped{rel, errText(err)})
			return
		}
		for _, e := range entries {
			if len(out)+len(skips) >= entryLimit {
				skips = append(skips, skipped{rel, "too many entries"})
				return
			}
			name := filepath.Join(rel, e.Name())
			fi, err := untrusted.Lstat(root, name)
			if err != nil {
				skips = append(skips, skipped{name, errText(err)})
				continue
			}
			switch {
			case fi.IsDir():
				walk(name, depth+1)
			case fi.Mode()&fs.ModeSymlink != 0:
				target, err := untrusted.Readlink(root, name)
				if err != nil {
					skips = append(skips, skipped{name, errText(err)})
					continue
				}
				out[name] = found{link: true, target: target}
			case fi.Mode().IsRegular():
				f, err := hashFile(root, name)
				if err != nil {
					skips = append(skips, skipped{name, errText(err)})
					continue
				}
				out[name] = f
			default:
				skips = append(skips, skipped{name, "not a regular file, directory or symlink"})
			}
		}
	}
	walk(".", 0)
	return out, skips
}

func hashFile(root, name string) (found, error) {
	f, err := untrusted.Open(root, name)
	if err != nil {
		return found{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return found{}, err
	}
	if fi.Size() > fileLimit {
		return found{}, fmt.Errorf("%d bytes, over the %d bytes copied out", fi.Size(), fileLimit)
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, fileLimit+1))
	if err == nil && n > fileLimit {
		err = fmt.Errorf("over the %d bytes copied out", fileLimit)
	}
	r := found{size: n, mode: fi.Mode().Perm()}
	copy(r.sum[:], h.Sum(nil))
	return r, err
}

// errText is err without the path, which the record names already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// change is one path the run created, changed or removed.
type change struct {
	path   string
	before *entry
	after  *found
}

// changes compares the workspace after the run with what was staged.
func changes(staged manifest, after map[string]found) []change {
	var cs []change
	for p, a := range after {
		b, ok := staged[p]
		switch {
		case !ok:
			cs = append(cs, change{path: p, after: &a})
		case b.link != a.link || b.link && b.target != a.target || !b.link && b.sum != a.sum:
			cs = append(cs, change{path: p, before: &b, after: &a})
		}
	}
	for p, b := range staged {
		if _, ok := after[p]; !ok {
			cs = append(cs, change{path: p, before: &b})
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].path < cs[j].path })
	return cs
}

// copyOut copies the regular files among paths from root (the sandbox's)
// into dest (the run's folder), within totalLimit; links are never
// followed nor made.
func copyOut(root, dest string, paths []string, skips []skipped) []skipped {
	var total int64
	for _, p := range paths {
		data, err := untrusted.ReadFile(root, p, fileLimit)
		if err != nil {
			skips = append(skips, skipped{p, errText(err)})
			continue
		}
		if total += int64(len(data)); total > totalLimit {
			skips = append(skips, skipped{p, fmt.Sprintf("beyond the %d bytes copied out of a run", totalLimit)})
			continue
		}
		if err := untrusted.MkdirAll(dest, filepath.Dir(p), 0o755); err != nil {
			skips = append(skips, skipped{p, errText(err)})
			continue
		}
		if err := untrusted.WriteFile(dest, p, data, 0o644); err != nil {
			skips = append(skips, skipped{p, errText(err)})
		}
	}
	return skips
}

// leaveOutObeyed removes from dest, a folder of the run's output written
// since, what the host would run or obey there, as the exit audit judges
// it (a repository's git directory, .envrc, editor and tool settings, a
// .env, the packages in node_modules): the user's git status, cd or gemini in the folder must run
// nothing the run wrote. A path inside a .git directory takes the
// whole directory with it. Each is named, as left out of where.
func leaveOutObeyed(dest, where string, since time.Time) []skipped {
	var skips []skipped
	gone := map[string]bool{}
	r := audit.Scan(dest, since, nil, nil, probe.ObeyedAnywhere)
	found := r.Found
	// Installed dependencies the run wrote are code the host runs there
	// (npm test), as the exit audit judges them.
	for _, d := range r.Deps {
		found = append(found, d.Units...)
	}
	for _, p := range found {
		rel, err := filepath.Rel(dest, p)
		if err != nil {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if i := slices.Index(parts, ".git"); i >= 0 {
			rel = filepath.Join(parts[:i+1]...)
		}
		if gone[rel] {
			continue
		}
		gone[rel] = true
		reason := "the host would run or obey it here; read it in changes.patch"
		if err := untrusted.RemoveAll(dest, rel); err != nil {
			reason = "the host would run or obey it here, and it could not be removed: " + errText(err)
		}
		skips = append(skips, skipped{filepath.Join(where, rel), reason})
	}
	return skips
}

// patch renders the changes as a git-style patch that git apply takes:
// each changed text file as one hunk from its first changed line to its
// last, binaries and files too large to show as "Binary files … differ". The
// old content is read from where it was staged from; the new, from the
// workspace, beneath root.
func patch(root string, cs []change) []byte {
	var b bytes.Buffer
	for _, c := range cs {
		a, bp := quotePath("a/"+c.path), quotePath("b/"+c.path)
		fmt.Fprintf(&b, "diff --git %s %s\n", a, bp)
		var old, cur []byte
		oldText, curText := true, true
		switch {
		case c.before == nil:
			fmt.Fprintf(&b, "new file mode %s\n", gitMode(c.after.link, c.after.mode))
			a = "/dev/null"
		case c.after == nil:
			fmt.Fprintf(&b, "deleted file mode %s\n", gitMode(c.before.link, c.before.mode))
			bp = "/dev/null"
		case c.before.link != c.after.link || !c.before.link && c.before.mode&0o100 != c.after.mode&0o100:
			fmt.Fprintf(&b, "old mode %s\nnew mode %s\n", gitMode(c.before.link, c.before.mode), gitMode(c.after.link, c.after.mode))
		}
		if c.before != nil {
			old, oldText = stagedContent(*c.before)
		}
		if c.after != nil {
			if c.after.link {
				cur = []byte(c.after.target)
			} else {
				data, err := untrusted.ReadFile(root, c.path, patchLimit)
				cur, curText = data, err == nil && isText(data)
			}
		}
		if !oldText || !curText {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", a, bp)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", a, bp)
		writeHunk(&b, lines(old), lines(cur))
	}
	return b.Bytes()
}

// contextLines is how many unchanged lines a hunk shows on each side.
const contextLines = 3

// writeHunk writes the change from ol to nl as one hunk: the lines
// between their common beginning and end, with context around them.
func writeHunk(b *bytes.Buffer, ol, nl []string) {
	pre := 0
	for pre < len(ol) && pre < len(nl) && ol[pre] == nl[pre] {
		pre++
	}
	suf := 0
	for suf < len(ol)-pre && suf < len(nl)-pre && ol[len(ol)-1-suf] == nl[len(nl)-1-suf] {
		suf++
	}
	from, after := max(0, pre-contextLines), min(suf, contextLines)
	oldEnd, newEnd := len(ol)-suf, len(nl)-suf
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(from, oldEnd+after-from), hunkRange(from, newEnd+after-from))
	for _, l := range ol[from:pre] {
		writeLine(b, ' ', l)
	}
	for _, l := range ol[pre:oldEnd] {
		writeLine(b, '-', l)
	}
	for _, l := range nl[pre:newEnd] {
		writeLine(b, '+', l)
	}
	for _, l := range ol[oldEnd : oldEnd+after] {
		writeLine(b, ' ', l)
	}
}

// stagedContent is what a path held as the run started, read again from
// its source; false when it is no text patch can show, or its source has
// changed since.
func stagedContent(e entry) ([]byte, bool) {
	if e.link {
		return []byte(e.target), true
	}
	// The source may have changed since, into a FIFO (a session of the
	// project it lies in runs on): read as a regular file only, never
	// blocking, at most past the patch's limit.
	data, err := untrusted.ReadFile(filepath.Dir(e.src), filepath.Base(e.src), patchLimit+1)
	if err != nil || len(data) > patchLimit || sha256.Sum256(data) != e.sum {
		return nil, false
	}
	return data, isText(data)
}

// isText reports whether b is text changes.patch shows: UTF-8 without
// NUL or a control character but tab, form feed and a line's CRLF end.
// The user reads the patch with cat: a terminal would obey an escape
// sequence (OSC 52 sets the clipboard) or a lone CR, and a bidirectional
// override shows code other than it is; such a file is shown as binary,
// to be read in artifacts/.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for i, r := range string(b) {
		switch {
		case r == '\n', r == '\t', r == '\f':
		case r == '\r' && i+1 < len(b) && b[i+1] == '\n':
		case printable.IsControl(r):
			return false
		}
	}
	return true
}

func gitMode(link bool, m fs.FileMode) string {
	switch {
	case link:
		return "120000"
	case m&0o100 != 0:
		return "100755"
	}
	return "100644"
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	ls := strings.SplitAfter(string(b), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// hunkRange is a hunk's range of n lines after the first from, as
// unified diffs write it: an empty range names the line before it.
func hunkRange(from, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprint(from + 1)
	}
	return fmt.Sprintf("%d,%d", from+1, n)
}

func writeLine(b *bytes.Buffer, sign byte, l string) {
	b.WriteByte(sign)
	b.WriteString(l)
	if !strings.HasSuffix(l, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// quotePath writes a path as git does when it must: in double quotes,
// with control characters, quotes and backslashes escaped and every byte
// beyond ASCII in octal (git's core.quotePath), so that a name the
// sandbox chose can neither break the patch's lines nor draw on, or
// reorder, a terminal that shows it.
func quotePath(p string) string {
	if !strings.ContainsFunc(p, func(r rune) bool { return printable.IsControl(r) || r == '"' || r == '\\' || r == utf8.RuneError }) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
