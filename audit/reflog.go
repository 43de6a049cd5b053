package audit

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
var pseudoRefs = map[string]bool{origHead: true, "FETCH_HEAD": true, "MERGE_HEAD": true, "CHERRY_PICK_HEAD": true, "REVERT_HEAD": true, "REBASE_HEAD": true, autoMerge: true, bisectStart: true}

// bisectStart is where git bisect reset returns to.
const bisectStart = "BISECT_START"

// origHead is where git reset --hard ORIG_HEAD returns to.
const origHead = "ORIG_HEAD"

// autoMerge is the tree a merge wrote into the work tree (git diff
// AUTO_MERGE), which git restore -s AUTO_MERGE writes again.
const autoMerge = "AUTO_MERGE"

// A reflog (logs/<ref>) is where git takes a ref's earlier values from:
// git reset --hard HEAD@{1} or main@{1}, the undo of a move, writes into
// the work tree what its second last line says, and git checkout -
// (@{-1}) what its last checkout line says HEAD came from. Git only
// appends to one, so the start records each with its digest, and a
// reflog the session wrote is named unless it holds the start's lines
// and after them only what git log shows: values on the first-parent
// history of the ref's tip (the session's commits, a fast-forward), the
// start's own, and checkouts from branches or from such values.

// Reflog is a reflog as the start found it: its inode, size, status
// change (nanoseconds) and digest.
type Reflog struct {
	Ino   uint64
	Size  int64
	Ctime int64
	Sum   [sha256.Size]byte
}

// maxReflog bounds the reflogs the start records: one larger the session
// wrote is named.
const maxReflog = 64 << 20

// maxAppended bounds what of a reflog the end reads past the start's
// lines: more is named.
const maxAppended = 1 << 20

// maxFirstParents bounds the commits read down a tip's first parents.
const maxFirstParents = 10_000

// checkoutLine begins a checkout's reflog message.
const checkoutLine = "checkout: moving from "

// isReflog says whether an entry of a directory in mode m is a reflog.
func isReflog(m mode, name string) bool {
	return m == logsDir || m == reflogsDir || m == logsRefsDir && name != stashRef
}

// takeReflog records the reflog name of n, at rel, of status st: its
// digest, an earlier record's while its status is the one that record
// read.
func (w *walker) takeReflog(n node, name, rel string, st *unix.Stat_t) {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxReflog {
		return
	}
	now := Reflog{Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}
	if was, ok := w.base.reflogs()[rel]; ok && was.Ino == now.Ino && was.Size == now.Size && was.Ctime == now.Ctime {
		now.Sum = was.Sum
	} else if f, err := openReflog(n.fd, name); err != nil {
		return
	} else {
		sum, err := prefixSum(f, st.Size)
		f.Close()
		if err != nil {
			return
		}
		now.Sum = sum
	}
	w.take.Reflogs[rel] = now
}

func (s *Snapshot) reflogs() map[string]Reflog {
	if s == nil {
		return nil
	}
	return s.Reflogs
}

func openReflog(dirfd int, name string) (*os.File, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, os.ErrInvalid
	}
	return f, nil
}

// prefixSum is the digest of f's first size bytes.
func prefixSum(f *os.File, size int64) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	h := sha256.New()
	if n, err := io.Copy(h, io.NewSectionReader(f, 0, size)); err != nil || n != size {
		return sum, io.ErrUnexpectedEOF
	}
	h.Sum(sum[:0])
	return sum, nil
}

// reflogShown says whether the reflog name in n, at rel, which the
// session wrote, holds the start's lines and after them only values git
// log shows of its ref.
func (w *walker) reflogShown(n node, name, rel string) bool {
	f, err := openReflog(n.fd, name)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	var from int64
	var last string // the start's last value
	if was, ok := w.start.reflogs()[rel]; ok {
		if last, ok = startLines(f, fi.Size(), was); !ok {
			return false
		}
		from = was.Size
	} else if _, existed := w.start.files.inode(rel); existed || w.start.Root == "" {
		return false // the start's lines are unknown
	}
	if fi.Size()-from > maxAppended {
		return false
	}
	b := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(b, from); err != nil && err != io.EOF {
		return false
	}
	var lines [][3]string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			return false
		}
		old, value, message, ok := reflogLine(string(b[:i]))
		if !ok {
			return false
		}
		lines = append(lines, [3]string{old, value, message})
		b = b[i:]
	}
	if len(lines) == 0 {
		return true
	}
	ref, err := filepath.Rel(filepath.Join(n.gitDir, "logs"), rel)
	tip := lines[len(lines)-1][1]
	if err != nil || w.refValue(n.gitDir, ref) != tip {
		return false
	}
	// A linked worktree's branches and objects are its common
	// directory's.
	common := w.commonDir(n.gitDir)
	// The values the lines name, each to be shown; a checkout's from a
	// branch is.
	named := map[string]bool{}
	for _, l := range lines {
		named[l[0]], named[l[1]] = true, true
		if rest, ok := strings.CutPrefix(l[2], checkoutLine); ok {
			prev, _, ok := strings.Cut(rest, " to ")
			if !ok {
				return false
			}
			if !w.hasBranch(common, prev) {
				named[prev] = true
			}
		}
	}
	delete(named, last)
	delete(named, strings.Repeat("0", len(tip)))
	return w.inFirstParents(common, tip, named) || w.onBranches(common, named)
}

// startLines says whether the reflog f, of size bytes, begins with the
// lines the start recorded, was, and gives the last value they name ("" for
// none): the value of its ref at the start.
func startLines(f *os.File, size int64, was Reflog) (last string, ok bool) {
	if size < was.Size {
		return "", false
	}
	if sum, err := prefixSum(f, was.Size); err != nil || sum != was.Sum {
		return "", false
	}
	tail := make([]byte, min(was.Size, 4096))
	if _, err := f.ReadAt(tail, was.Size-int64(len(tail))); err != nil {
		return "", false
	}
	if i := bytes.LastIndexByte(tail[:max(len(tail)-1, 0)], '\n'); i >= 0 || was.Size <= 4096 {
		if _, value, _, ok := reflogLine(string(tail[i+1:])); ok {
			last = value
		}
	}
	return last, true
}

// pseudoRefShown says whether the pseudo ref name at rel, which the
// session wrote, in the git directory gitDir, names only what git log
// shows or the host had: AUTO_MERGE the tree of HEAD's commit; another
// a commit down the first parents of HEAD, of a value a ref had at the
// start, or of a branch the session did not write. A rebase, merge or
// reset the host's git ran beside the session leaves them so: ORIG_HEAD
// where HEAD was, a stopped rebase's REBASE_HEAD on the branch's old
// history, AUTO_MERGE at the tree it wrote.
func (w *walker) pseudoRefShown(gitDir, name, rel string) bool {
	b, err := w.read(rel)
	value := strings.TrimSpace(string(b))
	if err != nil || !isID(value) {
		return false
	}
	common := w.commonDir(gitDir)
	head := w.refValue(gitDir, "HEAD")
	if name == autoMerge {
		return head != "" && w.commitTree(common, head) == value
	}
	if head != "" && w.inFirstParents(common, head, map[string]bool{value: true}) {
		return true
	}
	for _, start := range w.startValues(gitDir) {
		if w.inFirstParents(common, start, map[string]bool{value: true}) {
			return true
		}
	}
	return w.onBranches(common, map[string]bool{value: true})
}

// startValues are the values the HEAD of the git directory gitDir and the
// branches of its common directory had at the start, as the reflogs the
// start recorded end (maxBranches of them at most, each read once a
// walk).
func (w *walker) startValues(gitDir string) []string {
	head := filepath.Join(gitDir, "logs", "HEAD")
	branches := filepath.Join(w.commonDir(gitDir), "logs", "refs", "heads") + "/"
	var values []string
	for _, rel := range slices.Sorted(maps.Keys(w.start.reflogs())) {
		if rel != head && !strings.HasPrefix(rel, branches) {
			continue
		}
		if len(values) == maxBranches {
			break
		}
		last, ok := w.startLasts[rel]
		if !ok {
			last = w.startLast(rel)
			if w.startLasts == nil {
				w.startLasts = map[string]string{}
			}
			w.startLasts[rel] = last
		}
		if last != "" {
			values = append(values, last)
		}
	}
	return values
}

// startLast is the last value of the reflog at rel as the start
// recorded it, "" where it no longer begins with the start's lines.
func (w *walker) startLast(rel string) string {
	f, err := untrusted.Open(w.root, rel)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	last, _ := startLines(f, fi.Size(), w.start.reflogs()[rel])
	return last
}

// maxBranches bounds the branches whose first parents onBranches reads.
const maxBranches = 256

// onBranches says whether each of ids (emptied) is down the first parents
// of a branch of the git directory gitDir that the session did not write:
// git log shows it there, and it is the host's own (a session that
// checked out such a branch and its own again left HEAD@{1} at its tip).
// A branch the session made or moved holds what it chose: HEAD@{1}
// planted at its tip is what the host's git reset --hard HEAD@{1} checks
// out. The branches past maxBranches, or packed-refs' bound, are not
// looked at.
func (w *walker) onBranches(gitDir string, ids map[string]bool) bool {
	for _, tip := range w.branchTips(gitDir) {
		if w.inFirstParents(gitDir, tip, ids) {
			return true
		}
	}
	return false
}

// branchTips are the values of the branches of gitDir, loose and packed,
// whose files' status last changed before the start, maxBranches at
// most, within packed-refs' bound.
func (w *walker) branchTips(gitDir string) (tips []string) {
	dirs := []string{filepath.Join(gitDir, "refs", "heads")}
	for len(dirs) > 0 {
		dir := dirs[0]
		dirs = dirs[1:]
		d, err := untrusted.OpenDir(w.root, dir)
		if err != nil {
			continue
		}
		entries, _ := d.ReadDir(maxBranches + 1)
		d.Close()
		for _, e := range entries {
			if len(tips)+len(dirs) >= maxBranches {
				return tips
			}
			rel := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				dirs = append(dirs, rel)
			case e.Type().IsRegular():
				if fi, err := e.Info(); err != nil || !w.older(fi) {
					continue
				}
				if b, err := w.read(rel); err == nil && isID(strings.TrimSpace(string(b))) {
					tips = append(tips, strings.TrimSpace(string(b)))
				}
			}
		}
	}
	f, err := untrusted.Open(w.root, filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return tips
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !w.older(fi) || w.packedRead.Add(fi.Size()) > maxPackedRead {
		return tips
	}
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 4096), 4096)
	for lines.Scan() {
		value, ref, _ := strings.Cut(lines.Text(), " ")
		if strings.HasPrefix(ref, "refs/heads/") && isID(value) {
			if len(tips) == maxBranches {
				return tips
			}
			tips = append(tips, value)
		}
	}
	return tips
}

// reflogLine reads a reflog line as git reads it ("<old> <new> <name>
// <email> <time> <zone>\t<message>\n", the tab optional): the old value,
// the new one and the message, and whether git reads it so.
func reflogLine(line string) (old, value, message string, ok bool) {
	rest, ok := strings.CutSuffix(line, "\n")
	if !ok {
		return "", "", "", false
	}
	var ids [2]string
	for i := range ids {
		ids[i], rest, ok = strings.Cut(rest, " ")
		if !ok || !isID(ids[i]) || len(ids[i]) != len(ids[0]) {
			return "", "", "", false
		}
	}
	_, rest, ok = strings.Cut(rest, ">")
	if !ok {
		return "", "", "", false
	}
	rest, ok = strings.CutPrefix(rest, " ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !ok || digits == 0 {
		return "", "", "", false
	}
	rest = rest[digits:]
	if len(rest) < 6 || rest[0] != ' ' || rest[1] != '+' && rest[1] != '-' || strings.Trim(rest[2:6], "0123456789") != "" {
		return "", "", "", false
	}
	return ids[0], ids[1], strings.TrimPrefix(rest[6:], "\t"), true
}

// refValue is the value of ref in the git directory gitDir (relative to
// the root), HEAD through the branch it names: a loose ref's or a packed
// one's, "" for none. Of a linked worktree's, only HEAD is its own: the
// branch HEAD names is its common directory's.
func (w *walker) refValue(gitDir, ref string) string {
	if ref != "HEAD" {
		gitDir = w.commonDir(gitDir)
	}
	for range 2 {
		if b, err := w.read(filepath.Join(gitDir, ref)); err == nil {
			value := strings.TrimSpace(string(b))
			if name, ok := strings.CutPrefix(value, "ref: "); ok && ref == "HEAD" {
				ref, gitDir = name, w.commonDir(gitDir)
				continue
			}
			if isID(value) {
				return value
			}
			return ""
		}
		if ref == "HEAD" {
			return ""
		}
		return w.packedRef(gitDir, ref)
	}
	return ""
}

// maxPackedRead bounds what the reflogs' judgement reads of packed-refs
// in a walk, all its git directories together: past it a ref that is only
// packed is taken for none, and its reflog is named. A session's thousand
// reflogs, each of a ref that is nowhere, had each read a packed-refs of
// 128 MiB whole.
const maxPackedRead = 256 << 20

// packedRef is the value packed-refs of gitDir gives ref, "" for none.
func (w *walker) packedRef(gitDir, ref string) string {
	key := [2]string{gitDir, ref}
	value, ok := w.packed[key]
	if !ok {
		value = w.readPackedRef(gitDir, ref)
		if w.packed == nil {
			w.packed = map[[2]string]string{}
		}
		w.packed[key] = value
	}
	return value
}

// readPackedRef reads what packedRef says, within maxPackedRead.
func (w *walker) readPackedRef(gitDir, ref string) string {
	f, err := untrusted.Open(w.root, filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || w.packedRead.Add(fi.Size()) > maxPackedRead {
		return ""
	}
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 4096), 4096)
	for lines.Scan() {
		if value, ok := strings.CutSuffix(lines.Text(), " "+ref); ok && isID(value) {
			return value
		}
	}
	return ""
}

// inFirstParents says whether each of ids (emptied) is tip or a commit
// down its first parents, as far as the loose objects of gitDir hold
// them: what git log shows of a branch whose tip is tip (a packed commit
// ends the walk, its id in).
func (w *walker) inFirstParents(gitDir, tip string, ids map[string]bool) bool {
	for id, i := tip, 0; len(ids) > 0 && id != "" && i < maxFirstParents; i++ {
		delete(ids, id)
		id = w.firstParent(gitDir, id)
	}
	return len(ids) == 0
}

// firstParent is the first parent of the loose commit id in gitDir, ""
// for none.
func (w *walker) firstParent(gitDir, id string) string {
	key := [2]string{gitDir, id}
	parent, ok := w.parents[key]
	if !ok {
		parent = w.readFirstParent(gitDir, id)
		if w.parents == nil {
			w.parents = map[[2]string]string{}
		}
		w.parents[key] = parent
	}
	return parent
}

// readFirstParent reads what firstParent says.
func (w *walker) readFirstParent(gitDir, id string) string {
	_, parent := w.readCommit(gitDir, id)
	return parent
}

// commitTree is the tree of the loose commit id in gitDir, "" for none.
func (w *walker) commitTree(gitDir, id string) string {
	tree, _ := w.readCommit(gitDir, id)
	return tree
}

// readCommit reads the tree and the first parent of the loose commit id
// in gitDir from its header ("" for none): the tree comes first, the
// parents after it.
func (w *walker) readCommit(gitDir, id string) (tree, parent string) {
	f, err := untrusted.Open(w.root, filepath.Join(gitDir, "objects", id[:2], id[2:]))
	if err != nil {
		return "", ""
	}
	defer f.Close()
	z, err := zlib.NewReader(bufio.NewReader(io.LimitReader(f, 1<<20)))
	if err != nil {
		return "", ""
	}
	r := bufio.NewReader(io.LimitReader(z, 4096))
	if header, err := r.ReadString(0); err != nil || !strings.HasPrefix(header, "commit ") {
		return "", ""
	}
	for first := true; ; first = false {
		line, err := r.ReadString('\n')
		if err != nil || line == "\n" {
			return tree, ""
		}
		value := strings.TrimSuffix(line, "\n")
		if t, ok := strings.CutPrefix(value, "tree "); ok && first && len(t) == len(id) && isID(t) {
			tree = t
		}
		if parent, ok := strings.CutPrefix(value, "parent "); ok {
			if len(parent) != len(id) || !isID(parent) {
				return tree, ""
			}
			return tree, parent
		}
	}
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
	return w.packedRef(gitDir, ref) != ""
}

// commonDir is the directory a linked worktree's git directory gitDir
// shares its branches and objects with, as its commondir file says (git
// reads it so; one the session changed is itself a finding), where that
// lies beneath the root; gitDir itself otherwise.
func (w *walker) commonDir(gitDir string) string {
	b, err := w.read(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	common := strings.TrimSpace(string(b))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	} else if rel, err := filepath.Rel(w.root, common); err == nil {
		common = rel
	}
	if !filepath.IsLocal(common) {
		return gitDir
	}
	return filepath.Clean(common)
}

// isID says whether s is an object's full id, SHA-1's or SHA-256's.
func isID(s string) bool {
	return (len(s) == 40 || len(s) == 64) && isHex(s)
}
