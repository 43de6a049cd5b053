package audit

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// pseudoRefs are the refs at a git directory's top that the host's git
// writes into the work tree by, none of which git status names: git
// reset --hard ORIG_HEAD (the undo of a reset, merge or rebase), git
// merge FETCH_HEAD, a merge's, cherry-pick's or revert's head, and git
// bisect reset, which checks out what BISECT_START names unasked. Each
// the session wrote is named with the branches; BISECT_START, followed
// unnamed, is moved aside.
var pseudoRefs = map[string]bool{"ORIG_HEAD": true, "FETCH_HEAD": true, "MERGE_HEAD": true, "CHERRY_PICK_HEAD": true, "REVERT_HEAD": true, "REBASE_HEAD": true, "AUTO_MERGE": true, bisectStart: true}

// bisectStart is where git bisect reset returns to.
const bisectStart = "BISECT_START"

// headLog is the reflog of HEAD in a git directory's logs/: git checkout
// - (@{-1}) checks out what its last checkout line says HEAD came from.
const headLog = "HEAD"

// reflogTail bounds what of a reflog is read from its end to find its
// last checkout line.
const reflogTail = 1 << 20

// checkoutLine begins a checkout's reflog message.
const checkoutLine = "checkout: moving from "

// previousIsBranch says whether git checkout -, by the last checkout line
// of the reflog logs/HEAD (in n, a git directory's logs/), returns to a
// branch of the git directory, or to nothing: a line the session wrote
// can name any revision there (a commit's id, :/fix), which git checks
// out detached. A last line git would not read as one, or a tail past
// reflogTail without one, is taken for such a name.
func (w *walker) previousIsBranch(n node) bool {
	fd, err := unix.Openat(n.fd, headLog, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), headLog)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	from := max(st.Size-reflogTail, 0)
	b := make([]byte, st.Size-from)
	if _, err := f.ReadAt(b, from); err != nil && err != io.EOF {
		return false
	}
	for len(b) > 0 {
		i := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
		line := b[i:]
		b = b[:i]
		if i == 0 && from > 0 {
			return false // perhaps cut
		}
		if !bytes.Contains(line, []byte(checkoutLine)) {
			continue
		}
		name, ok := previousCheckout(string(line))
		return ok && w.hasBranch(n.gitDir, name)
	}
	return true
}

// previousCheckout is the name a reflog line says a checkout moved from,
// read as git reads it ("<old> <new> <name> <email> <time> <zone>\t<message>\n",
// the tab optional), and whether git reads it so.
func previousCheckout(line string) (string, bool) {
	rest, ok := strings.CutSuffix(line, "\n")
	if !ok {
		return "", false
	}
	for range 2 {
		var id string
		id, rest, ok = strings.Cut(rest, " ")
		if !ok || (len(id) != 40 && len(id) != 64) || !isHex(id) {
			return "", false
		}
	}
	_, rest, ok = strings.Cut(rest, ">")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutPrefix(rest, " ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !ok || digits == 0 {
		return "", false
	}
	rest = rest[digits:]
	if len(rest) < 6 || rest[0] != ' ' || rest[1] != '+' && rest[1] != '-' || strings.Trim(rest[2:6], "0123456789") != "" {
		return "", false
	}
	rest = strings.TrimPrefix(rest[6:], "\t")
	rest, ok = strings.CutPrefix(rest, checkoutLine)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, " to ")
	return name, ok
}

// hasBranch says whether name is a branch of the git directory gitDir
// (relative to the root): a loose ref or a packed one, by a name git
// takes for nothing else.
func (w *walker) hasBranch(gitDir, name string) bool {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") != "" ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasPrefix(name, ".") ||
		strings.Contains(name, "/.") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") {
		return false
	}
	ref := "refs/heads/" + name
	if fi, err := untrusted.Lstat(w.root, filepath.Join(gitDir, ref)); err == nil {
		return fi.Mode().IsRegular()
	}
	f, err := untrusted.Open(w.root, filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 4096), 4096)
	for lines.Scan() {
		if strings.HasSuffix(lines.Text(), " "+ref) {
			return true
		}
	}
	return false
}
