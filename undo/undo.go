// Package undo keeps what a project held when each session started, and
// puts it back: claudebox --undo. A snapshot is a git tree of the
// checkout's tracked and untracked (not ignored) files, written by the
// supervisor before the sandbox runs its command, into an object store of
// claudebox's own under ~/.claudebox, which no sandbox sees; the blobs it
// shares with the project are read from the project's objects, which the
// sandbox can write, so every blob is checked against its name before it
// is restored.
package undo

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/internal/dirent"
	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// keep is how many snapshots of a checkout are kept; keepIgnored, how
// many of them keep their list of ignored files.
const keep, keepIgnored = 10, 3

// Snapshot is one session's start.
type Snapshot struct {
	// ID names it: the time it was taken.
	ID       string
	Checkout string
	Tree     string
	Taken    time.Time
	// Since is Mark's time: a status change from it on is a session's.
	Since time.Time
	// Unknown are the files the session may have written before the
	// snapshot read them.
	Unknown []string
	// Pending: the snapshot was not finished (its session ended first).
	Pending bool
	// Beside: another session ran in the checkout as its session started.
	Beside bool
	// Undone is when --undo last put the checkout back as it records,
	// zero if never.
	Undone time.Time
	// added is how many bytes of files it read (at most what its new
	// objects take).
	added int64
}

// Mark is the time, by the filesystem's clock, from which a change in the
// checkout is the session's: call it before the sandbox can write.
func Mark(stateDir, root string) (time.Time, error) {
	st := storeOf(stateDir, root)
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return time.Time{}, err
	}
	path := filepath.Join(st.dir, "mark")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return time.Time{}, err
	}
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_CTIME, &sx); err != nil {
		return time.Time{}, err
	}
	return time.Unix(sx.Ctime.Sec, int64(sx.Ctime.Nsec)), nil
}

// SharesClock says whether the checkout lies on the filesystem Mark
// stamps by (the undo store's), where a status change there compares
// with Mark's time to the nanosecond: another filesystem stamps at its
// own granularity (a FAT one's by two seconds, down), a network one by
// its server's clock.
func SharesClock(stateDir, root, checkout string) bool {
	var store, tree unix.Stat_t
	return unix.Stat(storeOf(stateDir, root).dir, &store) == nil && unix.Stat(checkout, &tree) == nil && store.Dev == tree.Dev
}

// changedSince lists the paths, under checkout, whose status changed at
// or after since, or that are gone or lie under what is no longer a
// directory (nothing followed through a link). Each directory is opened
// once, from its parent, and its files' statuses read from it: a status
// read by a file's whole path looked up each of its directories again,
// and 60,000 files took 600 ms of processor time, 190 so.
func changedSince(ctx context.Context, checkout string, paths []string, since time.Time) []string {
	changed := make([]bool, len(paths))
	// Each worker takes a run of the paths: git lists a directory's
	// files together.
	workers := min(runtime.GOMAXPROCS(0), len(paths))
	parallel.Each(workers, func(w int) {
		dirs := openDirs{checkout: checkout}
		defer dirs.close()
		for i := len(paths) * w / workers; i < len(paths)*(w+1)/workers; i++ {
			p := paths[i]
			if p == "" || ctx.Err() != nil {
				continue
			}
			dir, name := path.Split(p)
			fd := dirs.at(strings.TrimSuffix(dir, "/"))
			var sx unix.Statx_t
			changed[i] = fd < 0 || !isName(name) || unix.Statx(fd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_CTIME, &sx) != nil ||
				!time.Unix(sx.Ctime.Sec, int64(sx.Ctime.Nsec)).Before(since)
		}
	})
	var out []string
	for i, c := range changed {
		if c && paths[i] != "" {
			out = append(out, paths[i])
		}
	}
	return out
}

// openDirs holds a checkout's directory open, and the directories of one
// path in it, each opened from the one above without following a link.
type openDirs struct {
	checkout string
	// dir is the path whose directories fds holds: fds[0] the
	// checkout's, fds[i] that of dir's ith name; -1 for what is no
	// directory (or under one).
	dir string
	fds []int
}

// at is the directory dir (its path in the checkout, "" for the
// checkout), opened, or -1 where it or one above it is no directory.
func (d *openDirs) at(dir string) int {
	if d.fds == nil {
		fd, err := unix.Open(d.checkout, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			fd = -1
		}
		d.fds = []int{fd}
	} else if dir == d.dir {
		return d.fds[len(d.fds)-1]
	}
	var names []string
	if dir != "" {
		names = strings.Split(dir, "/")
	}
	held := 0
	if d.dir != "" {
		for _, name := range strings.Split(d.dir, "/") {
			if held == len(names) || names[held] != name {
				break
			}
			held++
		}
	}
	d.closeFrom(held + 1)
	for _, name := range names[held:] {
		fd, parent := -1, d.fds[len(d.fds)-1]
		if parent >= 0 && isName(name) {
			if opened, err := unix.Openat(parent, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				fd = opened
			}
		}
		d.fds = append(d.fds, fd)
	}
	d.dir = dir
	return d.fds[len(d.fds)-1]
}

// closeFrom closes the directories from the nth on.
func (d *openDirs) closeFrom(n int) {
	for _, fd := range d.fds[n:] {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	d.fds = d.fds[:n]
}

func (d *openDirs) close() {
	if d.fds != nil {
		d.closeFrom(0)
	}
}

// isName says whether name is one entry's name in a directory.
func isName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.Contains(name, "/")
}

// store is the project's snapshots' directory; its git directory holds
// their objects.
type store struct{ dir, gitDir string }

func storeOf(stateDir, root string) store {
	dir := filepath.Join(stateDir, instance.UndoRecords, instance.Hash(root))
	return store{dir: dir, gitDir: filepath.Join(dir, "git")}
}

const idLayout = "20060102T150405.000000Z"

// Take records the checkout of p as it is now. It runs git with a
// configuration of claudebox's own (no hook, filter or fsmonitor of the
// project's runs), on the store's own index of the checkout, so that
// files git has already hashed for an earlier snapshot are not read again.
//
// skip are paths the launch makes while the snapshot is taken (its
// stand-ins): they are left out of it.
//
// ctx ends it early (the session's command ended first): its git is
// killed, the snapshot stays pending, and its copy of the index goes.
//
// The sandbox may already run while it is taken (a snapshot of a large
// tree takes a tenth of a second or more, which the session's start does
// not wait for): since is Mark's time, taken before the sandbox could
// write. Once git has read the tree, every file whose status changed since
// then (its ctime, which nothing can set back), or that lies under what is
// no longer a directory, is taken out of the snapshot as unknown: its
// content may be the session's. So is a file whose blob is not what its
// path holds, read again without following a link (notAsHashed). --undo
// leaves such a file as it is and names it.
//
// beside says another session runs in the checkout as this one starts:
// --undo of this snapshot undoes what that one changes after too.
//
// Once its name is claimed, a snapshot not taken is returned with its
// error, pending: Drop removes it.
func Take(ctx context.Context, stateDir string, p instance.Project, now, since time.Time, skip []string, beside bool) (taken Snapshot, err error) {
	if p.GitDir == "" {
		return Snapshot{}, errors.New("not a git repository")
	}
	gate := listGateOf(ctx)
	defer gate.open()
	st := storeOf(stateDir, p.Root)
	if err := st.init(p); err != nil {
		return Snapshot{}, err
	}
	// Until the snapshot is written, it stands as pending: a session that
	// ends first (its supervisor does not wait) leaves no snapshot, and
	// --undo does not then take an older one for the last.
	claimed := "checkout " + p.Checkout + "\nsince " + strconv.FormatInt(since.UnixNano(), 10) + "\n" + besideLine(beside)
	now, err = st.claim(now, claimed)
	if err != nil {
		return Snapshot{}, err
	}
	defer func() {
		if err != nil {
			taken = Snapshot{ID: now.UTC().Format(idLayout), Checkout: p.Checkout, Taken: now, Since: since, Pending: true}
		}
	}()
	// A stopped snapshot's pending record stays (its session has none):
	// the oldest past keep go here too, or a project whose sessions all
	// end before their snapshot would gather one a session.
	dropped := st.prune(p.Checkout)
	st.pruneOwed()
	id := now.UTC().Format(idLayout)
	pending := filepath.Join(st.dir, id+".pending")
	// The checkout's own index of the store, kept from the last snapshot:
	// git hashes again only what changed since. Two sessions starting at
	// once each work on a copy. The first hashes every file: the
	// checkout's own index is the sandboxes' to write, and git takes an
	// entry whose status data match the file for the content it names.
	index := filepath.Join(st.dir, instance.Hash(p.Checkout)+".index")
	work := index + "." + id
	defer os.Remove(work)
	defer os.Remove(work + ".lock") // git's, if git was killed
	// From the index read to the record naming the snapshot's tree, no
	// other launch removes the store's objects (pruneObjects).
	objects, err := st.lockObjectsSweeping()
	if err != nil {
		return Snapshot{}, err
	}
	defer objects.Close()
	data, known, err := st.readIndex(index)
	first := err != nil
	var copied unix.Stat_t
	if !first {
		if err := os.WriteFile(work, data, 0o600); err != nil {
			return Snapshot{}, err
		}
		if unix.Lstat(work, &copied) != nil {
			known = ""
		}
	}
	// First, while the sandbox waits (ListGate); without the list,
	// --changes names no removed ignored file, and takes each ignored file
	// the host runs that the session wrote for a finding.
	// git add would wait as long on a .gitignore that is a FIFO.
	if err, waiting := st.listIgnored(ctx, p.Checkout, commonOf(p), work, id, gate).(waitingError); waiting {
		return Snapshot{}, err
	}
	gate.open()
	written := false
	defer func() {
		if !written {
			os.Remove(filepath.Join(st.dir, id+".ignored"))
			os.Remove(filepath.Join(st.dir, id+".listing"))
		}
	}()
	var standIns []string
	for _, path := range skip {
		if rel, err := filepath.Rel(p.Checkout, path); err == nil && filepath.IsLocal(rel) && !inNested(p.Checkout, rel) {
			standIns = append(standIns, rel)
		}
	}
	leftOut, added, listed := st.leftOut(ctx, p.Checkout, work)
	// Stopped (its session ended first), it is counted, once dropped, for
	// what git add may have written: a session leaving a new large file
	// and ending at once grew the store by it at every launch, counted as
	// 256 KiB.
	if added > droppedAtLeast {
		if err := writeRecord(pending, []byte(claimed+"added "+strconv.FormatInt(added, 10)+"\n")); err != nil {
			return Snapshot{}, err
		}
	}
	hashed := &hashedPaths{paths: map[string]bool{}}
	add := func() error {
		specs := ".\x00"
		for _, rel := range append(slices.Clip(standIns), leftOut...) {
			specs += ":(top,literal,exclude)" + rel + "\x00"
		}
		return st.gitTo(ctx, p.Checkout, work, strings.NewReader(specs), hashed, "add", "-A", "--verbose", "--pathspec-from-file=-", "--pathspec-file-nul")
	}
	// Where git listed nothing it would read (no file changed, none
	// removed, none new since the store's index), git add has nothing to
	// add: the index stays the last snapshot's, and what changed since the
	// mark is left out below as for any snapshot. One process less at
	// each launch in a checkout no session changed.
	holdpoint.At("snapshot listed")
	if first || listed {
		err = add()
	}
	// git add exits 1, the rest added, where an exclude names a file it
	// ignores, which it adds only when told to: a project whose .gitignore
	// hides a stand-in (Rails' template, /.env*, hides .envrc) had no
	// session it could undo. Asked again without those; the index is
	// fresh, so nothing is hashed twice.
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 && len(standIns) > 0 {
		if standIns, err = st.notIgnored(ctx, p.Checkout, work, standIns); err == nil {
			err = add()
		}
	}
	if err != nil {
		return Snapshot{}, err
	}
	if first {
		if err := st.addTrackedIgnored(ctx, p, work, id, skip); err != nil {
			return Snapshot{}, err
		}
	}
	entries, listed := st.listedEntries(p.Checkout, known, work, &copied)
	if !listed {
		staged, err := st.git(ctx, p.Checkout, work, nil, "ls-files", "-z", "--stage")
		if err != nil {
			return Snapshot{}, err
		}
		entries = stagedEntries(staged)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.path
	}
	unknown := changedSince(ctx, p.Checkout, names, since)
	unknown = append(unknown, leftOut...)
	unknown = append(unknown, notAsHashed(ctx, p.Checkout, entries, hashed, first)...)
	slices.Sort(unknown)
	unknown = slices.Compact(unknown)
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	if len(unknown) > 0 {
		if _, err := st.git(ctx, p.Checkout, work, strings.NewReader(strings.Join(unknown, "\x00")+"\x00"), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return Snapshot{}, err
		}
	}
	// git writes an index it changed whole, under another name: where the
	// copy is still the file written above, it holds what the store's
	// index held, whose tree the last snapshot wrote, and the store's
	// index stays as it is (each file made and removed costs a burst of
	// launches on a file system without a journal).
	var tree string
	unchanged := len(unknown) == 0 && known != "" && st.hasObject(known) && sameStatus(work, &copied)
	if unchanged {
		tree = known
	} else {
		common := p.CommonDir
		if common == "" {
			common = p.GitDir
		}
		packed := map[string]bool{}
		added += st.keepLoose(ctx, filepath.Join(common, "objects"), entries, hashed, st.room(), packed)
		added += st.keepPacked(ctx, p.Checkout, work, p.GitDir, common, packed, st.room())
		if tree, err = st.git(ctx, p.Checkout, work, nil, "write-tree"); err != nil {
			return Snapshot{}, err
		}
	}
	tree = strings.TrimSpace(tree)
	// What was taken out is read again next time.
	if len(unknown) == 0 && !unchanged {
		err = st.keepIndex(work, index, tree)
	}
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{ID: id, Checkout: p.Checkout, Tree: tree, Taken: now, Since: since, Unknown: unknown, Beside: beside}
	st.keepListing(s, func() []byte { return listingOf(entries, unknown) })
	record := "checkout " + s.Checkout + "\ntree " + s.Tree + "\nsince " + strconv.FormatInt(since.UnixNano(), 10) + "\nadded " + strconv.FormatInt(added, 10) + "\n" + besideLine(beside)
	for _, u := range unknown {
		record += "unknown " + strconv.Quote(u) + "\n"
	}
	if err := os.WriteFile(filepath.Join(st.dir, id+".snapshot"), []byte(record), 0o600); err != nil {
		return Snapshot{}, err
	}
	written = true
	os.Remove(pending)
	objects.Close()
	st.pruneSome(ctx, dropped+st.prune(p.Checkout))
	return s, nil
}

// pruneAfter is how many bytes the dropped snapshots may have added
// before their objects are pruned; each counts for at least
// droppedAtLeast. The prune's git walks every kept tree (80 ms of
// processor time for 60,000 files): it runs once a few launches, unless
// the sessions leave large files, while the store holds no more than
// pruneAfter and one snapshot's files beyond what the kept ones hold.
const pruneAfter, droppedAtLeast = 4 << 20, 256 << 10

// pruneSome counts dropped, the bytes the snapshots prune just dropped
// may have added, in the store's count of those not yet pruned, and
// prunes their objects once that passes pruneAfter.
func (st store) pruneSome(ctx context.Context, dropped int64) {
	if dropped == 0 {
		return
	}
	path := filepath.Join(st.dir, "unpruned")
	b, _ := os.ReadFile(path)
	owed, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	owed = max(owed, 0) + dropped
	if owed >= pruneAfter && st.pruneObjects(ctx) {
		os.Remove(path)
		return
	}
	writeRecord(path, []byte(strconv.FormatInt(owed, 10)+"\n"))
}

// pruneOwed prunes the store's objects where a prune is owed: the one
// beside the last session was cut off by its end, which a session can
// make come at once, every time (the store grew by each new large file
// it left). It runs while the sandbox's command waits for the snapshot's
// start, bounded as every git on the store is, and not cut off by the
// session.
func (st store) pruneOwed() {
	path := filepath.Join(st.dir, "unpruned")
	b, _ := os.ReadFile(path)
	owed, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if owed >= pruneAfter && st.pruneObjects(context.Background()) {
		os.Remove(path)
	}
}

// lockObjectsSweeping locks the store's objects shared, as a snapshot
// holds them while it works on its copy of the store's index; first,
// where no other snapshot or prune holds them, it removes the copies, and
// git's locks on them, that snapshots whose supervisor was killed left: a
// copy of the checkout's index a kill, which nothing else removed.
func (st store) lockObjectsSweeping() (*os.File, error) {
	f, err := st.lockObjects(unix.LOCK_EX | unix.LOCK_NB)
	if err != nil {
		return st.lockObjects(unix.LOCK_SH)
	}
	works, _ := filepath.Glob(filepath.Join(st.dir, "*.index.*"))
	for _, work := range works {
		_, id, _ := strings.Cut(filepath.Base(work), ".index.")
		if _, err := time.Parse(idLayout, strings.TrimSuffix(id, ".lock")); err == nil {
			os.Remove(work)
		}
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockObjects locks the store's objects: shared while a snapshot writes
// some, exclusive while pruneObjects removes some.
func (st store) lockObjects(how int) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(st.dir, "objects.lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// pruneObjects removes the store's objects that no kept snapshot's tree
// (nor the tree of a checkout's index of the store) holds, and says
// whether it did: a session can leave a new large file for every
// launch's snapshot to copy, and the objects of the snapshots prune
// dropped stayed, the store growing by that file at every launch until
// its disk was full. It runs after the snapshot, beside the session
// (stopped when the session ends), and not while another launch of the
// project takes one (its objects are not yet named by a record). git
// walks only trees, the store's, or the project's that the sandbox can
// rewrite: a tree git cannot read leaves its snapshot out, and its
// objects go (--undo could restore nothing of it); each git command is
// bounded (gitLimit) and none runs when a FIFO lies among the objects it
// would read.
func (st store) pruneObjects(ctx context.Context) bool {
	lock, err := st.lockObjects(unix.LOCK_EX | unix.LOCK_NB)
	if err != nil {
		return false
	}
	defer lock.Close()
	if st.waiting() != "" {
		return false
	}
	// No index: git prune keeps what the store's own index names.
	noIndex := filepath.Join(st.dir, "prune.index")
	prune := func(trees []string) error {
		_, err := st.git(ctx, st.dir, noIndex, nil, append([]string{"prune", "--expire=now", "--"}, trees...)...)
		return err
	}
	trees, indexes := st.keptTrees()
	if err := prune(trees); err == nil || ctx.Err() != nil {
		return err == nil
	}
	// A tree git cannot walk whole (gone, or a subtree of the project's
	// objects gone or broken) stops the prune: it is left out, and an
	// index of it goes (its blobs may go).
	var whole []string
	for _, tree := range trees {
		if _, err := st.git(ctx, st.dir, noIndex, nil, "ls-tree", "-r", "-t", "--name-only", "-z", tree); err == nil {
			whole = append(whole, tree)
		} else if ctx.Err() == nil {
			for _, index := range indexes[tree] {
				os.Remove(index)
			}
		}
	}
	return ctx.Err() == nil && prune(whole) == nil
}

// keptTrees are the trees the store's records name: each snapshot's, and
// each checkout's index's (the tree it was written for), with the
// indexes of each. An index with no
// record of its tree is removed: git add trusts an entry whose status
// matches its file, and would not write its blob again once pruned.
func (st store) keptTrees() (trees []string, indexes map[string][]string) {
	indexes = map[string][]string{}
	records, _ := filepath.Glob(filepath.Join(st.dir, "*.snapshot"))
	for _, r := range records {
		data, _ := os.ReadFile(r)
		for _, line := range strings.Split(string(data), "\n") {
			if tree, ok := strings.CutPrefix(line, "tree "); ok && isObjectName(tree) {
				trees = append(trees, tree)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(st.dir, "*.index"))
	for _, index := range files {
		var sx unix.Stat_t
		if unix.Lstat(index, &sx) != nil {
			continue
		}
		record, _ := os.ReadFile(index + ".tree")
		status, tree, _ := strings.Cut(strings.TrimSpace(string(record)), " ")
		if status == statusOf(&sx) && isObjectName(tree) {
			trees = append(trees, tree)
			indexes[tree] = append(indexes[tree], index)
		} else {
			os.Remove(index)
		}
	}
	slices.Sort(trees)
	return slices.Compact(trees), indexes
}

// isObjectName says whether s is an object's name in hex, so that git
// takes it for no option.
func isObjectName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// inNested says whether rel lies in a repository nested in checkout (a
// stand-in in its .git): git add takes such a repository as one entry,
// and once the store's index holds it, refuses every path in it, an
// excluded one too (no launch after the first kept a snapshot).
func inNested(checkout, rel string) bool {
	for dir := filepath.Dir(rel); dir != "."; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(checkout, dir, ".git")); err == nil {
			return true
		}
	}
	return false
}

// claim makes the pending record of a snapshot taken at now, and returns
// the time that names it: sessions of a project starting together can
// take theirs in one microsecond, and each needs its own name (the
// snapshot, and the copy of the store's index git works on).
func (st store) claim(now time.Time, record string) (time.Time, error) {
	for ; ; now = now.Add(time.Microsecond) {
		id := now.UTC().Format(idLayout)
		if _, err := os.Lstat(filepath.Join(st.dir, id+".snapshot")); err == nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(st.dir, id+".pending"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return now, err
		}
		_, err = f.WriteString(record)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		// Another launch that claimed the name may have written its
		// snapshot and removed its pending record since the look above:
		// the name is its.
		if _, serr := os.Lstat(filepath.Join(st.dir, id+".snapshot")); serr == nil {
			os.Remove(filepath.Join(st.dir, id+".pending"))
			continue
		}
		return now, err
	}
}

// leftOut lists the files git add would read in checkout (those the
// store's index does not hold as they are) that take less disk than their
// size: a session can leave a sparse file of a terabyte, which git would
// hash for the ten minutes it is given at every launch, keeping no
// snapshot. And what git add refuses, keeping no snapshot at any launch
// while it stays: what is no file, link or directory (a FIFO in place of
// a tracked file), a file that cannot be read (made mode 000). And what
// would take more of ~/.claudebox's disk than it has room for (see
// room): a session can leave gigabytes of new files, which the next
// snapshot copied until that disk was full, its part kept, and every
// later launch refused as the disk was full. Such a file is left out, as
// one the session may have written: --undo names it and leaves it as it
// is. listed says whether git named any file, or could not be asked.
func (st store) leftOut(ctx context.Context, checkout, index string) (left []string, added int64, listed bool) {
	out, err := st.git(ctx, checkout, index, nil, "ls-files", "-z", "--others", "--modified", "--exclude-standard")
	if err != nil {
		return nil, 0, true
	}
	paths := strings.Split(out, "\x00")
	sizes := addedSizes(ctx, checkout, paths)
	budget := st.room()
	for i, size := range sizes {
		// Stopped, the snapshot runs no git add: the rest of a list of
		// a large tree's files (every one, before its first snapshot is
		// written) would only hold up the session's exit.
		if ctx.Err() != nil {
			break
		}
		switch {
		case size == refused || size > budget:
			left = append(left, paths[i])
		case size > 0:
			budget -= size
			added += size
		}
	}
	return left, added, out != ""
}

// What addedSizes gives for a path git add refuses or would hash for its
// whole size, and for one it reads nothing of (not there, a link, a
// directory, a path under what is no directory).
const (
	refused = -1
	unread  = -2
)

// addedSizes is, for each of paths under checkout, the size git add would
// read of it, or refused: a sparse file, one that cannot be read, what is
// no file, link or directory. Each directory is opened once, from its
// parent, without following a link, and its files' statuses read from it
// (as changedSince does): a status by the file's whole path, one after
// another, took a million files' first snapshot 5.5 s of a processor. A
// path under a link is not read: git add does not follow one either.
func addedSizes(ctx context.Context, checkout string, paths []string) []int64 {
	sizes := make([]int64, len(paths))
	euid := uint32(os.Geteuid())
	leased, known := leasedInodes()
	// Each worker takes a run of the paths: git lists a directory's
	// files together.
	workers := max(1, min(runtime.GOMAXPROCS(0), len(paths)))
	parallel.Each(workers, func(w int) {
		dirs := openDirs{checkout: checkout}
		defer dirs.close()
		for i := len(paths) * w / workers; i < len(paths)*(w+1)/workers; i++ {
			sizes[i] = unread
			rel := paths[i]
			if ctx.Err() != nil {
				return
			}
			if rel == "" || !filepath.IsLocal(rel) {
				continue
			}
			dir, name := path.Split(rel)
			fd := dirs.at(strings.TrimSuffix(dir, "/"))
			var sx unix.Stat_t
			if fd < 0 || !isName(name) || unix.Fstatat(fd, name, &sx, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			switch kind := sx.Mode & unix.S_IFMT; {
			case kind == unix.S_IFREG && (isSparse(&sx) || !readable(fd, name, &sx, euid, known && !leased[sx.Ino])) || kind != unix.S_IFREG && kind != unix.S_IFLNK && kind != unix.S_IFDIR:
				sizes[i] = refused
			case kind == unix.S_IFREG:
				sizes[i] = sx.Size
			}
		}
	})
	return sizes
}

// StoreReserve is what a snapshot leaves free on the store's disk, beyond
// half of the rest: a launch refuses to start with less than 4 MiB, and
// one with less than this is told its snapshot keeps no file's content.
const StoreReserve = 16 << 20

// room is how many bytes of files a snapshot may take into the store:
// half of what its disk has free beyond StoreReserve (a file's blob takes
// at most its size).
func (st store) room() int64 {
	var fs unix.Statfs_t
	if unix.Statfs(st.dir, &fs) != nil {
		return math.MaxInt64
	}
	return max(0, (int64(fs.Bavail)*fs.Bsize-StoreReserve)/2)
}

// readable says whether the file name in the directory dir, of status
// sx, opens for reading, as git add opens it. One of this process's user
// (euid) that its owner may read does, where no lease is held on it
// (unleased): the owner's bits are the owner's permission, an ACL's too.
// Another is opened, without waiting: on a lease, the open fails at once.
func readable(dir int, name string, sx *unix.Stat_t, euid uint32, unleased bool) bool {
	if unleased && sx.Uid == euid && sx.Mode&unix.S_IRUSR != 0 {
		return true
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err == nil
}

// leasedInodes lists the inodes a lease is held on (/proc/locks), and
// says whether the list is whole. A process holding a write lease on a
// file of its own (fcntl F_SETLEASE) holds every other open of it, git
// add's, until the kernel breaks the lease (lease-break-time, 45 s by
// default), file after file: a session holding one kept its own snapshot
// from being written. The sandbox's seccomp filter now refuses it leases;
// one of another process of the user's (a file server's) holds git add
// as long. An inode of another file system may share the number: that
// file is only opened.
func leasedInodes() (map[uint64]bool, bool) {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	const most = 16 << 20
	b, err := io.ReadAll(io.LimitReader(f, most+1))
	if err != nil || len(b) > most {
		return nil, false
	}
	leased := map[uint64]bool{}
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		if !slices.Contains(fields, "LEASE") {
			continue
		}
		for _, field := range fields {
			if strings.Count(field, ":") != 2 {
				continue
			}
			ino, err := strconv.ParseUint(field[strings.LastIndexByte(field, ':')+1:], 10, 64)
			if err != nil {
				return nil, false
			}
			leased[ino] = true
		}
	}
	return leased, true
}

// isSparse says whether a file of status sx takes less disk than its size
// (by more than a MiB: a file system may keep a small file's tail inline).
func isSparse(sx *unix.Stat_t) bool { return sx.Blocks*512+1<<20 < sx.Size }

// addTrackedIgnored adds to a first snapshot the files the checkout
// tracks that its ignore rules hide, which git add -A passes over. Of
// the checkout's index it reads only the names: git hashes each file.
func (st store) addTrackedIgnored(ctx context.Context, p instance.Project, work, id string, skip []string) error {
	data, err := untrusted.ReadFile(p.GitDir, "index", 1<<30)
	if err != nil {
		return nil
	}
	names := filepath.Join(st.dir, id+".names-index")
	defer os.Remove(names)
	if err := os.WriteFile(names, data, 0o600); err != nil {
		return err
	}
	// A split index, whose shared part lies beside the checkout's, is not
	// read here: its ignored files are left out.
	listed, err := st.git(ctx, p.Checkout, names, nil, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	if err != nil {
		return nil
	}
	var add strings.Builder
	for _, name := range strings.Split(listed, "\x00") {
		fi, err := untrusted.Lstat(p.Checkout, name)
		if !filepath.IsLocal(name) || err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 || slices.Contains(skip, filepath.Join(p.Checkout, name)) {
			continue
		}
		if sx, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() && sx.Blocks*512+1<<20 < sx.Size {
			// Sparse (leftOut): left out.
			continue
		}
		add.WriteString(":(top,literal)" + name + "\x00")
	}
	if add.Len() == 0 {
		return nil
	}
	_, err = st.git(ctx, p.Checkout, work, strings.NewReader(add.String()), "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul")
	return err
}

// rawAttributes, the store's info/attributes, which take precedence over
// every other, has its git take each file as it is: no clean filter, line
// ending or encoding of the checkout's .gitattributes or the user's. A
// snapshot is taken as the session starts, and its git ran the user's
// filters on what the session was writing: nbstripout's "python3" -m
// nbstripout, from the checkout's top, imported the session's
// nbstripout.py there; and --undo restored a filter's output, not the
// file.
const rawAttributes = "* -text -filter -ident -working-tree-encoding\n"

// init makes the store's git directory, whose objects fall back on the
// project's, and gives it the project's own exclusions (info/exclude,
// guarded in every sandbox), so that it ignores what the project ignores,
// and rawAttributes.
func (st store) init(p instance.Project) error {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return err
	}
	// One at a time: sessions starting together would each see no store
	// and make it, or read a file another is writing.
	lock, err := os.OpenFile(filepath.Join(st.dir, "init.lock"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	common := commonOf(p)
	if _, err := os.Stat(filepath.Join(st.gitDir, "HEAD")); err != nil {
		// The project's object format, read from its config as git reads
		// it: git run in the checkout would open its HEAD, which a session
		// (an enclosing project's) can make a FIFO.
		format := "sha1"
		entries, err := gitconfig.Read(filepath.Join(common, "config"))
		if err != nil {
			return err
		}
		if f := strings.ToLower(gitconfig.Last(entries, "extensions.objectformat")); f != "" {
			format = f
		}
		if out, err := exec.Command("git", "init", "-q", "--bare", "--object-format="+format, st.gitDir).CombinedOutput(); err != nil {
			return fmt.Errorf("git init: %v: %s", err, bytes.TrimSpace(out))
		}
	}
	if err := writeChanged(filepath.Join(st.gitDir, "objects", "info", "alternates"), []byte(filepath.Join(common, "objects")+"\n")); err != nil {
		return err
	}
	exclude, _ := untrusted.ReadFile(filepath.Join(common, "info"), "exclude", 1<<20)
	os.MkdirAll(filepath.Join(st.gitDir, "info"), 0o700)
	if err := writeChanged(filepath.Join(st.gitDir, "info", "attributes"), []byte(rawAttributes)); err != nil {
		return err
	}
	return writeChanged(filepath.Join(st.gitDir, "info", "exclude"), exclude)
}

// commonOf is the git directory p's worktrees share.
func commonOf(p instance.Project) string {
	if p.CommonDir != "" {
		return p.CommonDir
	}
	return p.GitDir
}

// writeChanged writes one of the store's files, where it does not hold
// data already: every launch takes a snapshot, and most find them as the
// last one left them. Replaced whole (a session taking its snapshot reads
// them meanwhile), without an fsync: what a crash leaves wrong differs,
// so the next launch writes it again.
func writeChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return writeRecord(path, data)
}

// writeRecord replaces one of the store's files whole, without an fsync:
// each is the store's own cache or record, which a crash may lose (the
// next snapshot, or session, writes it again), and an fsync costs
// milliseconds on a real disk, at the launch or its exit.
func writeRecord(path string, data []byte) error {
	return atomicfile.WriteFrom(path, 0o600, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// gitLimit bounds each git command on the store: the objects it reads
// through the project's (and the checkout's files) are the session's to
// replace, and a FIFO there would hold git forever. Hashing a large
// checkout's changes (git add) may take longer.
const gitLimit, addLimit = time.Minute, 10 * time.Minute

// git runs git on the store for the work tree checkout, with index, until
// ctx ends; in, when not nil, is its standard input.
func (st store) git(ctx context.Context, checkout, index string, in io.Reader, args ...string) (string, error) {
	var out bytes.Buffer
	if err := st.gitTo(ctx, checkout, index, in, &out, args...); err != nil {
		return "", err
	}
	return out.String(), nil
}

// gitTo is git, its output written to out as git writes it.
func (st store) gitTo(ctx context.Context, checkout, index string, in io.Reader, out io.Writer, args ...string) error {
	limit := gitLimit
	if args[0] == "add" {
		limit = addLimit
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(parent, limit)
	defer cancel()
	// The untracked cache in the store's index skips the directories whose
	// status (ctime included, which nothing can set back) has not changed
	// since the last snapshot: the second snapshot of a large tree costs
	// half of the first.
	c := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.untrackedCache=true", "-c", "core.trustctime=true"}, args...)...)
	c.Dir = checkout
	c.Env = append(os.Environ(), "GIT_DIR="+st.gitDir, "GIT_WORK_TREE="+checkout, "GIT_INDEX_FILE="+index, "GIT_OPTIONAL_LOCKS=0")
	// A git held by a FIFO the session left (a .gitattributes) goes with
	// the supervisor, which takes the snapshot beside the session and may
	// end first: it is not left behind, one for each session. In a process
	// group of its own, it is not ended by the terminal's signals to
	// claudebox's (a window closed as the session ends: SIGHUP), which the
	// supervisor outlives, its exit's record lost with the git.
	c.SysProcAttr = &unix.SysProcAttr{Pdeathsig: unix.SIGKILL, Setpgid: true}
	var stderr bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = in, out, &stderr
	err := c.Start()
	if err == nil {
		running, _ := ctx.Value(gitStartedKey{}).(*atomic.Int64)
		if running != nil {
			running.Store(int64(c.Process.Pid))
		}
		err = c.Wait()
		if running != nil {
			running.Store(0)
		}
	}
	if err != nil {
		if parent.Err() != nil {
			return parent.Err()
		}
		if ctx.Err() != nil {
			return fmt.Errorf("git %s did not answer in %v (a FIFO a session left among the repository's objects or files?)", args[0], limit)
		}
		return fmt.Errorf("git %s: %w: %s", args[0], err, firstLine(stderr.String()))
	}
	return nil
}

// notIgnored is those of rels, paths in checkout, that git does not
// ignore. check-ignore takes no literal pathspec: a path it would read as
// magic (:…) is kept.
func (st store) notIgnored(ctx context.Context, checkout, index string, rels []string) ([]string, error) {
	var asked []string
	for _, rel := range rels {
		if !strings.HasPrefix(rel, ":") {
			asked = append(asked, rel)
		}
	}
	if len(asked) == 0 {
		return rels, nil
	}
	out, err := st.git(ctx, checkout, index, strings.NewReader(strings.Join(asked, "\x00")+"\x00"), "check-ignore", "-z", "--stdin")
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return rels, nil // none is
	}
	if err != nil {
		return nil, err
	}
	ignored := map[string]bool{}
	for _, rel := range strings.Split(out, "\x00") {
		ignored[rel] = true
	}
	return slices.DeleteFunc(rels, func(rel string) bool { return ignored[rel] }), nil
}

// gitStartedKey is the context key of where gitTo keeps the process ID of
// the git it runs (an *atomic.Int64, 0 once it ended): listIgnored asks
// it whether it stalled.
type gitStartedKey struct{}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// besideLine is a record's line saying another session ran beside its
// session.
func besideLine(beside bool) string {
	if beside {
		return "beside\n"
	}
	return ""
}

// List returns the snapshots of checkout in project root, newest first.
func List(stateDir, root, checkout string) []Snapshot {
	return storeOf(stateDir, root).list(checkout)
}

// MarkUndone records that the checkout was put back as s records, at
// at: --undo --list says so, so that the list does not read as
// something still to undo.
func MarkUndone(stateDir, root string, s Snapshot, at time.Time) error {
	return atomicfile.Write(filepath.Join(storeOf(stateDir, root).dir, s.ID+".undone"), []byte(strconv.FormatInt(at.UnixNano(), 10)), 0o600)
}

// LastCheckout is the checkout of the repository at root whose session
// started last, of those with a snapshot kept: each checkout keeps its
// own, and a user in a new worktree looks for the others'.
func LastCheckout(stateDir, root string) (string, bool) {
	all := storeOf(stateDir, root).all()
	if len(all) == 0 {
		return "", false
	}
	return all[0].Checkout, true
}

func (st store) list(checkout string) []Snapshot {
	return slices.DeleteFunc(st.all(), func(s Snapshot) bool { return s.Checkout != checkout })
}

// all is the store's snapshots of every checkout, newest first.
func (st store) all() []Snapshot {
	names, _ := filepath.Glob(filepath.Join(st.dir, "*.snapshot"))
	pending, _ := filepath.Glob(filepath.Join(st.dir, "*.pending"))
	names = append(names, pending...)
	var out []Snapshot
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		ext := filepath.Ext(n)
		s := Snapshot{ID: strings.TrimSuffix(filepath.Base(n), ext), Pending: ext == ".pending"}
		for _, line := range strings.Split(string(data), "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "checkout":
				s.Checkout = v
			case "tree":
				s.Tree = v
			case "since":
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					s.Since = time.Unix(0, n)
				}
			case "unknown":
				if u, err := strconv.Unquote(v); err == nil {
					s.Unknown = append(s.Unknown, u)
				}
			case "added":
				s.added, _ = strconv.ParseInt(v, 10, 64)
			case "beside":
				s.Beside = true
			}
		}
		t, err := time.Parse(idLayout, s.ID)
		if err != nil || s.Checkout == "" || s.Tree == "" && !s.Pending {
			continue
		}
		s.Taken = t
		if b, err := os.ReadFile(filepath.Join(st.dir, s.ID+".undone")); err == nil {
			if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
				s.Undone = time.Unix(0, n)
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Snapshot) int { return b.Taken.Compare(a.Taken) })
	return out
}

// prune keeps the newest snapshots of checkout, and says how many bytes
// of files those it dropped whose trees no kept one has may have added
// (each counted for droppedAtLeast at least): their objects may now be
// held by none.
func (st store) prune(checkout string) int64 {
	all := st.list(checkout)
	kept := map[string]bool{}
	for _, s := range all[:min(len(all), keep)] {
		kept[s.Tree] = true
	}
	var dropped int64
	for _, s := range all[min(len(all), keep):] {
		os.Remove(filepath.Join(st.dir, s.ID+".snapshot"))
		os.Remove(filepath.Join(st.dir, s.ID+".pending"))
		os.Remove(filepath.Join(st.dir, s.ID+".undone"))
		// A pending one's git may have written objects before it was
		// stopped.
		if s.Pending || !kept[s.Tree] {
			dropped += max(s.added, droppedAtLeast)
		}
	}
	// Only the last sessions' ignored files are read again (--changes),
	// and the list of an installed tree is large.
	for _, s := range all[min(len(all), keepIgnored):] {
		os.Remove(filepath.Join(st.dir, s.ID+".ignored"))
		os.Remove(filepath.Join(st.dir, s.ID+".listing"))
	}
	return dropped
}

// Drop removes the snapshot id of the project at root, taken or pending:
// it was no session's (its launch failed before the sandbox began), and
// --undo and --changes name the last session that ran.
func Drop(stateDir, root, id string) {
	st := storeOf(stateDir, root)
	for _, ext := range []string{".snapshot", ".pending", ".ignored", ".listing"} {
		os.Remove(filepath.Join(st.dir, id+ext))
	}
	// Its git may have written objects no kept snapshot holds.
	st.pruneSome(context.Background(), droppedAtLeast)
}

// Change is one path Undo restores or moves aside.
type Change struct {
	Path string
	// What: "changed", "removed" (restored as it was), "created" (moved
	// aside) or "unknown" (left as it is: the session may have written it
	// before the snapshot read it).
	What      string
	mode, oid string
}

// entry is a file of a snapshot's tree, and its size.
type entry struct {
	mode, oid string
	size      int64
}

// Plan compares the checkout now with s: what Undo would restore or move
// aside, in path order.
func Plan(stateDir, root string, s Snapshot) ([]Change, error) {
	st := storeOf(stateDir, root)
	if path := st.waiting(); path != "" {
		return nil, hint.Errorf("if you did not make it, remove it: rm "+mount.Quote(path), "git would wait forever to read %s, which is not a file (a FIFO a session left)", printable.Escape(path))
	}
	entries, err := st.tree(s)
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, path := range slices.Sorted(maps.Keys(entries)) {
		e := entries[path]
		switch same, exists := matches(s.Checkout, path, e, st); {
		case !exists:
			changes = append(changes, Change{Path: path, What: "removed", mode: e.mode, oid: e.oid})
		case !same:
			changes = append(changes, Change{Path: path, What: "changed", mode: e.mode, oid: e.oid})
		}
	}
	created, err := st.created(s)
	if err != nil {
		return nil, err
	}
	for _, path := range created {
		if !slices.Contains(s.Unknown, path) {
			changes = append(changes, Change{Path: path, What: "created"})
		}
	}
	for _, path := range s.Unknown {
		changes = append(changes, Change{Path: path, What: "unknown"})
	}
	return changes, nil
}

// waiting names what git would open and wait on forever among the
// objects it reads for the store: the project's, through the store's
// alternates, and those their own alternates name. A FIFO or a device
// there, which a session can put in place of an object, a pack or an
// alternates file; "" when there is none.
func (st store) waiting() string {
	b, _ := os.ReadFile(filepath.Join(st.gitDir, "objects", "info", "alternates"))
	return waitingObjects(alternates(string(b), ""), 0)
}

// waitingIgnore names a file of ignore rules git would open and wait on
// forever while it lists the checkout's files: a .gitignore in the
// checkout (not in a git directory; git passes over one in an ignored
// directory, which this does not tell), or the user's core.excludesFile
// (~/.gitconfig's or ~/.config/git/config's, else ~/.config/git/ignore),
// that is a FIFO or a device; "" when there is none, or when ctx ends
// first. Directories deeper than git's status walk reads them are not
// looked in.
func waitingIgnore(ctx context.Context, checkout string) string {
	if path := waitingExcludesFile(); path != "" {
		return path
	}
	var look func(fd int, rel string, depth int) string
	look = func(fd int, rel string, depth int) string {
		defer unix.Close(fd)
		buf := dirent.Buffer()
		defer dirent.Release(buf)
		for ctx.Err() == nil {
			read, err := dirent.Read(fd, *buf)
			if err != nil || len(read) == 0 {
				break
			}
			for name, typ := range read.All() {
				var st unix.Stat_t
				if typ == unix.DT_UNKNOWN && dirent.StatAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
				switch {
				case string(name) == ".gitignore":
					if path := filepath.Join(checkout, rel, ".gitignore"); blocksOpen(path) {
						return path
					}
				case typ == unix.DT_DIR && string(name) != ".git" && depth < 256 && len(rel)+1+len(name) <= audit.MaxPathLen:
					sub, err := unix.Openat(fd, string(name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
					if err != nil {
						continue
					}
					if p := look(sub, filepath.Join(rel, string(name)), depth+1); p != "" {
						return p
					}
				}
			}
		}
		return ""
	}
	top, err := unix.Open(checkout, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	return look(top, ".", 0)
}

// waitingExcludesFile names the user's core.excludesFile when git would
// wait on it: a FIFO or a device (reached through a symlink, as git
// reaches it).
func waitingExcludesFile() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	file := filepath.Join(xdg, "git", "ignore")
	if values := gitConfigValues(userGitConfigs(), "core.excludesfile"); len(values) > 0 {
		file = values[len(values)-1]
		if strings.HasPrefix(file, "~/") {
			file = filepath.Join(home, file[2:])
		}
	}
	if blocksOpen(file) {
		return file
	}
	return ""
}

// untrackedHidden says whether the host's git status names no untracked
// file in p: status.showUntrackedFiles = no (a large repository's setup
// advises it, a dotfiles repository needs it) in the system's, the
// user's, the repository's or its worktree's configuration, or a file
// they include. A file the session made that git does not ignore is then
// as unseen as one it ignores: a json.py beside a tracked app.py stayed,
// git status showed nothing, and the host's python3 app.py imported it.
// Any of them saying so is taken for git's answer (a later file's normal
// is not weighed against it).
func untrackedHidden(p instance.Project) bool {
	configs := userGitConfigs()
	if common := commonOf(p); common != "" {
		configs = append(configs, filepath.Join(common, "config"))
	}
	if p.GitDir != "" {
		configs = append(configs, filepath.Join(p.GitDir, "config.worktree"))
	}
	for _, v := range gitConfigValues(configs, "status.showuntrackedfiles") {
		if v = strings.ToLower(v); v == "no" || !gitconfig.IsTrue(v) && v != "normal" && v != "all" {
			return true
		}
	}
	return false
}

// userGitConfigs are the system's and the user's git configuration files
// (XDG's, ~/.gitconfig, $GIT_CONFIG_GLOBAL), in git's order, their links
// resolved (a dotfiles manager's).
func userGitConfigs() []string {
	var configs []string
	if !gitconfig.IsTrue(os.Getenv("GIT_CONFIG_NOSYSTEM")) {
		configs = append(configs, "/etc/gitconfig")
	}
	if home, err := os.UserHomeDir(); err == nil {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		configs = append(configs, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
		if global := os.Getenv("GIT_CONFIG_GLOBAL"); filepath.IsAbs(global) {
			configs = append(configs, global)
		}
	}
	for i, c := range configs {
		if real, err := filepath.EvalSymlinks(c); err == nil {
			configs[i] = real
		}
	}
	return configs
}

// gitConfigValues are key's values in configs and the files they include,
// in the order git reads them: an included file's where its include
// stands, so that the last is git's (a ~/.gitconfig that includes a shared
// base, then sets its own core.hooksPath, has git take its own). An
// includeIf's file is read whatever its condition.
func gitConfigValues(configs []string, key string) []string {
	var values []string
	eachGitConfigEntry(configs, maxConfigsText, func(e gitconfig.Entry) {
		if e.Key == key && !e.NoValue {
			values = append(values, e.Value)
		}
	})
	return values
}

// eachGitConfigEntry visits the entries of configs and of the files they
// include, in the order git reads them (gitConfigValues), up to limit
// bytes of them in all: it returns the bytes it read, and whether it read
// them whole (git reads as many includes as a file names, which a
// session's repository below the top numbered in thousands, each of
// 1 MiB).
func eachGitConfigEntry(configs []string, limit int, visit func(gitconfig.Entry)) (size int, whole bool) {
	whole = true
	seen := map[string]bool{}
	var read func(config string, depth int)
	read = func(config string, depth int) {
		if seen[config] || depth > maxIncludeDepth || !whole {
			return
		}
		seen[config] = true
		room := limit - size
		b, err := untrusted.ReadFile(filepath.Dir(config), filepath.Base(config), int64(max(0, min(maxTaskText, room))))
		if errors.Is(err, untrusted.ErrTooLarge) {
			// One over 1 MiB is passed over, as gitconfig.Read does.
			whole = room > maxTaskText
			return
		}
		size += len(b)
		entries, _ := gitconfig.Parse(b)
		for i := range entries {
			visit(entries[i])
			for _, inc := range gitconfig.Includes(entries[i : i+1]) {
				if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(inc, "~/") {
					inc = filepath.Join(home, inc[2:])
				}
				if !filepath.IsAbs(inc) {
					inc = filepath.Join(filepath.Dir(config), inc)
				}
				if real, err := filepath.EvalSymlinks(inc); err == nil {
					read(real, depth+1)
				}
			}
		}
	}
	for _, c := range configs {
		read(c, 0)
	}
	return size, whole
}

// maxIncludeDepth is how deep git follows includes before it refuses;
// maxConfigsText is what is read of a repository's configuration files,
// the user's and those they include with them.
const maxIncludeDepth, maxConfigsText = 10, 4 << 20

// blocksOpen says whether opening path, through a link as git does, may
// wait forever: it is a FIFO or a device.
func blocksOpen(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Type()&(fs.ModeNamedPipe|fs.ModeDevice) != 0
}

// WaitingObject names what git would open and wait on forever among the
// objects of the repository whose common git directory is commonDir (and
// those its alternates name): a FIFO or a device a session left; "" when
// there is none.
func WaitingObject(commonDir string) string {
	return waitingObjects([]string{filepath.Join(commonDir, "objects")}, 0)
}

// alternates are the object directories an alternates file names, a
// relative one from dir.
func alternates(file, dir string) []string {
	var dirs []string
	for _, line := range strings.Split(file, "\n") {
		if line = strings.TrimSpace(line); line == "" || line[0] == '#' {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		dirs = append(dirs, line)
	}
	return dirs
}

// waitingObjects looks two levels down each object directory in dirs
// (the fan-out directories, pack, info) and through their alternates, as
// deep as git follows them.
func waitingObjects(dirs []string, depth int) string {
	for _, dir := range dirs {
		top, _ := untrusted.ReadDir(dir, ".")
		for _, e := range top {
			if p := waitingEntry(dir, e); p != "" {
				return p
			}
			if e.IsDir() {
				sub, _ := untrusted.ReadDir(dir, e.Name())
				for _, f := range sub {
					if p := waitingEntry(filepath.Join(dir, e.Name()), f); p != "" {
						return p
					}
				}
			}
		}
		if b, err := untrusted.ReadFile(dir, filepath.Join("info", "alternates"), 1<<20); err == nil && depth < 5 {
			if p := waitingObjects(alternates(string(b), dir), depth+1); p != "" {
				return p
			}
		}
	}
	return ""
}

// waitingEntry is the path of e, in dir, when opening it (through a
// symlink, as git does) would wait: a FIFO or a device.
func waitingEntry(dir string, e fs.DirEntry) string {
	path := filepath.Join(dir, e.Name())
	kind := e.Type()
	if kind&fs.ModeSymlink != 0 {
		fi, err := os.Stat(path)
		if err != nil {
			return ""
		}
		kind = fi.Mode().Type()
	}
	if kind&(fs.ModeNamedPipe|fs.ModeDevice) != 0 {
		return path
	}
	return ""
}

// tree lists s's files: regular files, executables and links (a
// submodule's commit is left to git).
func (st store) tree(s Snapshot) (map[string]entry, error) {
	out, err := st.git(context.Background(), s.Checkout, os.DevNull, nil, "ls-tree", "-r", "-z", "-l", "--full-tree", s.Tree)
	if err != nil {
		return nil, err
	}
	entries := map[string]entry{}
	for _, rec := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] != "blob" || !filepath.IsLocal(path) {
			continue
		}
		// A blob gone from the objects (git says BAD for its size), which
		// the exit audit moves aside when it is not what its name says,
		// is still the start's file: named as not restored.
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			size = -1
		}
		entries[path] = entry{mode: f[0], oid: f[2], size: size}
	}
	return entries, nil
}

// created lists the files not ignored that s does not hold: those the
// session made, with the ignore rules of the checkout as it is.
func (st store) created(s Snapshot) ([]string, error) {
	index := filepath.Join(st.dir, s.ID+".plan-index")
	defer os.Remove(index)
	if _, err := st.git(context.Background(), s.Checkout, index, nil, "read-tree", s.Tree); err != nil {
		return nil, err
	}
	out, err := st.git(context.Background(), s.Checkout, index, nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" && filepath.IsLocal(p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// matches says whether the checkout's path is what e names, and whether
// anything is there; nothing is followed through a link. A file of
// another size than e's is not read, and one of its size is read as it
// streams, never held: the session may have left one of gigabytes
// (sparse, taking no disk), which a snapshot then took. An e of size -1
// is of the file's size, whatever it is.
func matches(checkout, path string, e entry, st store) (same, exists bool) {
	fi, err := untrusted.Lstat(checkout, path)
	if err != nil {
		return false, false
	}
	switch {
	case e.mode == "120000" && fi.Mode()&os.ModeSymlink != 0:
		target, err := untrusted.Readlink(checkout, path)
		if err != nil {
			return false, true
		}
		return blobName(strings.NewReader(target), int64(len(target)), len(e.oid)) == e.oid, true
	case e.mode != "120000" && fi.Mode().IsRegular() && (fi.Mode()&0o100 != 0) == (e.mode == "100755") && (e.size < 0 || fi.Size() == e.size):
		f, err := untrusted.Open(checkout, path)
		if err != nil {
			return false, true
		}
		defer f.Close()
		return blobName(f, fi.Size(), len(e.oid)) == e.oid, true
	default:
		return false, true
	}
}

// blobName is git's name of a blob holding the size bytes r reads, in the
// object format whose names have n hex digits; "" when r holds another
// number of bytes.
func blobName(r io.Reader, size int64, n int) string {
	h := blobHash(size, n)
	if got, err := io.Copy(h, io.LimitReader(r, size+1)); err != nil || got != size {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// blobHash is git's hash of a blob of size bytes, its header written: the
// blob's bytes are to be written to it.
func blobHash(size int64, n int) hash.Hash {
	var h hash.Hash = sha1.New()
	if n == 64 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// Result is what Apply did.
type Result struct {
	Restored []Change
	Moved    []audit.Moved
	Failed   []error
}

// Apply puts the checkout back as s found it: every file s holds with its
// content then, what stands in its way moved aside to dest first; then,
// with the ignore rules restored, every file not ignored that s does not
// hold moved aside. Ignored files are left as they are.
func Apply(stateDir, root string, s Snapshot, dest string) (Result, error) {
	st := storeOf(stateDir, root)
	var res Result
	changes, err := Plan(stateDir, root, s)
	if err != nil {
		return res, err
	}
	var restore []Change
	for _, c := range changes {
		if c.What == "changed" || c.What == "removed" {
			restore = append(restore, c)
		}
	}
	err = st.blobs(s.Checkout, restore, func(c Change, blob *os.File) {
		if blob == nil {
			res.Failed = append(res.Failed, fmt.Errorf("%s: its content at the start is gone from the repository's objects (a session changed them)", c.Path))
			return
		}
		moved, err := restoreFile(s.Checkout, c, blob, dest)
		res.Moved = append(res.Moved, moved...)
		if err != nil {
			res.Failed = append(res.Failed, fmt.Errorf("%s: %w", c.Path, err))
			return
		}
		res.Restored = append(res.Restored, c)
	})
	if err != nil {
		return res, err
	}
	created, err := st.created(s)
	if err != nil {
		return res, err
	}
	var paths []string
	for _, p := range created {
		if !slices.Contains(s.Unknown, p) {
			paths = append(paths, filepath.Join(s.Checkout, p))
		}
	}
	moved, err := audit.MoveAside(s.Checkout, dest, paths)
	res.Moved = append(res.Moved, moved...)
	if err != nil {
		res.Failed = append(res.Failed, err)
	}
	return res, nil
}

// blobs reads each change's blob from the store (and the project's
// objects behind it) and calls restore with it, in order: a file of the
// store's holding it, its content checked against its name, or nil when
// the blob is missing or not what its name says. A blob streams through
// one file at a time, its runs of zeros left as holes: what a snapshot
// took may be a sparse file of gigabytes, which memory would not hold.
func (st store) blobs(checkout string, changes []Change, restore func(Change, *os.File)) error {
	var in bytes.Buffer
	for _, c := range changes {
		in.WriteString(c.oid + "\n")
	}
	spool, err := os.CreateTemp(st.dir, "restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out, writer := io.Pipe()
	ended := make(chan struct{})
	go func() {
		writer.CloseWithError(st.gitTo(ctx, checkout, os.DevNull, &in, writer, "cat-file", "--batch"))
		close(ended)
	}()
	defer func() {
		cancel()
		out.Close()
		<-ended
	}()
	r := bufio.NewReader(out)
	for _, c := range changes {
		header, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		f := strings.Fields(header)
		if len(f) == 2 && f[1] == "missing" {
			restore(c, nil)
			continue
		}
		var size int64 = -1
		if len(f) == 3 {
			size, err = strconv.ParseInt(f[2], 10, 64)
		}
		if size < 0 || err != nil {
			return fmt.Errorf("git cat-file: %s", printable.Excerpt(header))
		}
		if f[1] != "blob" {
			if _, err := r.Discard(int(size) + 1); err != nil {
				return err
			}
			restore(c, nil)
			continue
		}
		h := blobHash(size, len(f[0]))
		if err := spool.Truncate(0); err != nil {
			return err
		}
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := copySparse(spool, io.TeeReader(io.LimitReader(r, size), h), size); err != nil {
			return err
		}
		if _, err := r.Discard(1); err != nil {
			return err
		}
		if f[0] != c.oid || hex.EncodeToString(h.Sum(nil)) != c.oid {
			restore(c, nil)
			continue
		}
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		restore(c, spool)
	}
	return nil
}

// copySparse writes the size bytes src reads to dst, where it stands,
// leaving each block of zeros a hole.
func copySparse(dst *os.File, src io.Reader, size int64) error {
	buf := make([]byte, 64<<10)
	start, err := dst.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	for done := int64(0); done < size; {
		n, err := io.ReadFull(src, buf[:min(int64(len(buf)), size-done)])
		if err != nil {
			return err
		}
		if bytes.Count(buf[:n], []byte{0}) == n {
			_, err = dst.Seek(int64(n), io.SeekCurrent)
		} else {
			_, err = dst.Write(buf[:n])
		}
		if err != nil {
			return err
		}
		done += int64(n)
	}
	return dst.Truncate(start + size)
}

// restoreFile writes c's content, what blob holds from where it stands,
// at its path in checkout, after moving aside what stands there, or on
// the way there, that is not a directory.
func restoreFile(checkout string, c Change, blob *os.File, dest string) ([]audit.Moved, error) {
	var moved []audit.Moved
	aside := func(rel string) error {
		m, err := audit.MoveAside(checkout, dest, []string{filepath.Join(checkout, rel)})
		moved = append(moved, m...)
		return err
	}
	if _, err := untrusted.Lstat(checkout, c.Path); err == nil {
		if err := aside(c.Path); err != nil {
			return moved, err
		}
	}
	dir := filepath.Dir(c.Path)
	if dir != "." {
		// A directory the session replaced by a file or a link goes aside.
		parts := strings.Split(dir, string(filepath.Separator))
		for i := range parts {
			prefix := filepath.Join(parts[:i+1]...)
			fi, err := untrusted.Lstat(checkout, prefix)
			if err == nil && !fi.IsDir() {
				if err := aside(prefix); err != nil {
					return moved, err
				}
				break
			}
		}
		if err := untrusted.MkdirAll(checkout, dir, 0o755); err != nil {
			return moved, err
		}
	}
	if c.mode == "120000" {
		// A link's target, which the kernel takes only up to a page.
		data, err := io.ReadAll(io.LimitReader(blob, unix.PathMax))
		if err != nil {
			return moved, err
		}
		parent, err := untrusted.OpenDir(checkout, dir)
		if err != nil {
			return moved, err
		}
		defer parent.Close()
		return moved, unix.Symlinkat(string(data), int(parent.Fd()), filepath.Base(c.Path))
	}
	perm := os.FileMode(0o644)
	if c.mode == "100755" {
		perm = 0o755
	}
	fi, err := blob.Stat()
	if err != nil {
		return moved, err
	}
	return moved, untrusted.WriteFrom(checkout, c.Path, perm, func(f *os.File) error {
		return copySparse(f, blob, fi.Size())
	})
}
