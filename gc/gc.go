// Package gc finds claudebox's instances under ~/.claudebox/projects, prunes
// those whose project is gone, and carries an instance to a project's new
// root. It never follows a symlink and never touches anything outside the
// projects directory.
package gc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/undo"
	"github.com/claudebox/claudebox/untrusted"
)

// State says what became of an instance's project root.
type State string

const (
	Live      State = "live"
	Gone      State = "gone"      // the root no longer exists
	Unmounted State = "unmounted" // the root's filesystem is not mounted now
)

// Instance is one project's state directory.
type Instance struct {
	Hash        string    `json:"hash"`
	Dir         string    `json:"dir"`
	Root        string    `json:"root"`
	State       State     `json:"state"`
	InUse       bool      `json:"in_use"`
	Transcripts int       `json:"sessions"` // Claude Code's conversations, "sessions" to its --resume
	Bytes       int64     `json:"bytes"`
	CacheBytes  int64     `json:"cache_bytes"` // its tool caches (instance.CachesDir)
	LastUsed    time.Time `json:"last_used"`
}

// Skipped is an entry of the projects directory that is left alone, and why.
type Skipped struct {
	Dir    string
	Reason string
	// Cause is the reason where the user can act on it; Root is the root a
	// ForeignRoot instance names.
	Cause Cause
	Root  string
}

// Cause is why an instance is skipped, where the user can act on it.
type Cause int

const (
	// ForeignRoot: project-root names a root of another hash, as an
	// interrupted --move leaves it.
	ForeignRoot Cause = iota + 1
	// Unreadable: the sandbox took the instance's permissions away.
	Unreadable
)

// trashPrefix names an instance being removed: it is renamed first, so an
// interrupted removal never leaves a half-deleted directory that looks like
// a live instance, and the next run finishes it.
const trashPrefix = ".gc-"

// ProjectsDir is where the instances live.
func ProjectsDir(stateDir string) string { return filepath.Join(stateDir, "projects") }

// Scan reads every instance. Entries that are not plainly an instance (a
// symlink, a malformed or unreadable project-root) are skipped with a
// reason; an interrupted removal is listed in trash.
func Scan(stateDir string, mounts Mounts) (insts []Instance, skipped []Skipped, trash []string, err error) {
	dir := ProjectsDir(stateDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), trashPrefix) && e.Type().IsDir():
			trash = append(trash, path)
			continue
		case e.Type()&fs.ModeSymlink != 0:
			skipped = append(skipped, Skipped{Dir: path, Reason: "is a symlink, not followed"})
			continue
		case !e.IsDir() || !instance.IsHash(e.Name()):
			skipped = append(skipped, Skipped{Dir: path, Reason: "is not an instance directory"})
			continue
		}
		inst, skip := read(path, mounts)
		if skip != nil {
			skip.Dir = path
			skipped = append(skipped, *skip)
			continue
		}
		insts = append(insts, inst)
	}
	return insts, skipped, trash, nil
}

// read examines one instance directory; why not, without Dir, when it is
// to be left alone.
func read(dir string, mounts Mounts) (Instance, *Skipped) {
	inst := Instance{Hash: filepath.Base(dir), Dir: dir}
	root, skip := readRoot(filepath.Dir(dir), inst.Hash)
	if skip != nil {
		return inst, skip
	}
	if instance.Hash(root) != inst.Hash {
		return inst, &Skipped{Reason: "project-root names " + root + ", whose instance is elsewhere", Cause: ForeignRoot, Root: root}
	}
	inst.Root = root
	switch _, err := os.Lstat(root); {
	case err == nil:
		inst.State = Live
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR):
		inst.State = Gone
		if mounts.unmounted(root) || mounts.holderAway(filepath.Dir(filepath.Dir(dir)), inst.Hash) {
			inst.State = Unmounted
		}
	default:
		return inst, &Skipped{Reason: "cannot tell whether " + root + " exists: " + err.Error()}
	}
	inst.InUse = instance.InUse(dir)
	inst.Bytes, inst.Transcripts, inst.LastUsed = usage(dir)
	inst.CacheBytes, _, _ = usage(filepath.Join(filepath.Dir(filepath.Dir(dir)), instance.CacheRecords, inst.Hash))
	return inst, nil
}

// readRoot reads the project-root file of the instance hash in projects:
// one line holding an absolute path.
func readRoot(projects, hash string) (string, *Skipped) {
	b, err := untrusted.ReadFile(filepath.Join(projects, hash), instance.RootFile, instance.RootFileLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &Skipped{Reason: "has no project-root"}
	case errors.Is(err, untrusted.ErrNotRegular) || errors.Is(err, unix.ELOOP):
		return "", &Skipped{Reason: "project-root is not a regular file"}
	case errors.Is(err, fs.ErrPermission):
		return "", &Skipped{Reason: "is not readable (the sandbox took its permissions away)", Cause: Unreadable}
	case err != nil:
		return "", &Skipped{Reason: "project-root is unreadable: " + err.Error()}
	}
	line := bytes.TrimSuffix(b, []byte("\n"))
	switch {
	case len(line) == 0:
		return "", &Skipped{Reason: "project-root is empty"}
	case bytes.ContainsAny(line, "\n\x00"):
		return "", &Skipped{Reason: "project-root is not one line"}
	case line[0] != '/':
		return "", &Skipped{Reason: "project-root is not an absolute path"}
	}
	return string(line), nil
}

// usage walks an instance without following symlinks: the disk it takes,
// the number of Claude Code's session transcripts and the newest
// modification time.
func usage(dir string) (bytes int64, sessions int, last time.Time) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err == nil {
		count := func(st *unix.Stat_t) {
			bytes += allocated(st)
			if m := time.Unix(st.Mtim.Unix()); m.After(last) {
				last = m
			}
		}
		count(&st)
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			walkBelow(dir, count)
		}
	}
	return bytes, transcript.Count(dir), last
}

// allocated is the disk st's file takes, what removing it frees: its
// blocks, not its length (a sparse file of 1 TiB, the sandbox's, takes
// next to nothing), shared among its hard links (400 names of one file
// are one file's blocks, not 400 files').
func allocated(st *unix.Stat_t) int64 {
	if st.Mode&unix.S_IFMT == unix.S_IFDIR || st.Nlink < 2 {
		return st.Blocks * 512
	}
	return st.Blocks * 512 / int64(st.Nlink)
}

// level is a directory the walk is below: who it is, to know it again on
// the way back up, and where its listing goes on.
type level struct {
	dev, ino uint64
	next     int64 // the offset after the entry walked into
}

// walkBelow calls count with what is below the directory dir, links not
// followed. It holds one directory open, and one level and a buffer of
// the listing: the sandbox can nest directories deeper than the host may
// open or name (the path of 30,000 levels stopped the walk at about 2,000,
// its descriptors at the host's limit on open files) and leave millions of
// entries in one (a million held --list at 214 MiB when each directory was
// read whole). It goes back up by "..", which must be the directory it
// came from: one the sandbox moved meanwhile ends the walk.
func walkBelow(dir string, count func(*unix.Stat_t)) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Open(dir, flags, 0)
	if err != nil {
		return
	}
	defer func() { unix.Close(fd) }()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	path := []level{{dev: st.Dev, ino: st.Ino}}
	buf := make([]byte, 8192)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			if len(path) == 1 {
				return
			}
			up, err := unix.Openat(fd, "..", flags, 0)
			if err != nil {
				return
			}
			unix.Close(fd)
			fd = up
			path = path[:len(path)-1]
			back := path[len(path)-1]
			if unix.Fstat(fd, &st) != nil || st.Dev != back.dev || st.Ino != back.ino {
				return
			}
			if _, err := unix.Seek(fd, back.next, io.SeekStart); err != nil {
				return
			}
			continue
		}
		for rec := buf[:n]; len(rec) > 0; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			next := int64(binary.NativeEndian.Uint64(rec[8:]))
			size := int(binary.NativeEndian.Uint16(rec[16:]))
			name := rec[19:size]
			name = name[:bytes.IndexByte(name, 0)]
			rec = rec[size:]
			// The entry last walked into, listed again after the seek (a
			// filesystem whose offsets two entries share), is not walked
			// again, or the walk would never end.
			if walked := path[len(path)-1].next; walked != 0 && next == walked {
				continue
			}
			if string(name) == "." || string(name) == ".." || unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			count(&st)
			if st.Mode&unix.S_IFMT != unix.S_IFDIR {
				continue
			}
			sub, err := unix.Openat(fd, string(name), flags, 0)
			if err != nil {
				continue
			}
			if unix.Fstat(sub, &st) != nil {
				unix.Close(sub)
				continue
			}
			path[len(path)-1].next = next
			path = append(path, level{dev: st.Dev, ino: st.Ino})
			unix.Close(fd)
			fd = sub
			break
		}
	}
}

// Sort orders instances so the stale ones come first: gone, then
// unmounted, then live; within each, least recently used first.
func Sort(insts []Instance) {
	rank := map[State]int{Gone: 0, Unmounted: 1, Live: 2}
	sort.SliceStable(insts, func(i, j int) bool {
		a, b := insts[i], insts[j]
		if rank[a.State] != rank[b.State] {
			return rank[a.State] < rank[b.State]
		}
		if !a.LastUsed.Equal(b.LastUsed) {
			return a.LastUsed.Before(b.LastUsed)
		}
		return a.Hash < b.Hash
	})
}

// Event is one line of a --gc report.
type Event struct {
	Instance Instance
	// Kind is "remove", "keep" (gone, but a session runs) or "finish" (an
	// interrupted removal completed).
	Kind string
}

// Summary counts what a --gc run did or, with dryRun, would do.
type Summary struct {
	Kept, Removed, Skipped int
	Freed                  int64
}

// Collect removes every instance whose root is gone, unless a session holds
// it. Each removal renames the instance out of the way first, so it is
// atomic for anyone looking, then deletes it. With dryRun nothing changes.
// An entry it cannot remove is reported to skip, and the run goes on.
func Collect(stateDir string, mounts Mounts, dryRun bool, report func(Event), skip func(Skipped)) (Summary, error) {
	insts, skipped, trash, err := Scan(stateDir, mounts)
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	failed := func(dir string, err error) {
		sum.Skipped++
		skip(Skipped{Dir: dir, Reason: "cannot remove it: " + err.Error()})
	}
	for _, s := range skipped {
		skip(s)
	}
	sum.Skipped = len(skipped)
	projects := ProjectsDir(stateDir)
	for _, t := range trash {
		bytes, _, _ := usage(t)
		if !dryRun {
			if err := finishTrashed(projects, strings.TrimPrefix(filepath.Base(t), trashPrefix)); err != nil {
				failed(t, err)
				continue
			}
		}
		sum.Freed += bytes
		report(Event{Instance{Dir: t}, "finish"})
	}
	for _, inst := range insts {
		if inst.State != Gone {
			if !dryRun && !inst.InUse {
				instance.SweepIdle(inst.Dir, inst.Root)
				undo.Forget(filepath.Dir(projects), inst.Root, goneCheckouts(filepath.Dir(projects), inst, mounts))
			}
			sum.Kept++
			continue
		}
		removed, err := remove(projects, inst, dryRun)
		if err != nil {
			failed(inst.Dir, err)
			continue
		}
		if !removed {
			inst.InUse = true
			sum.Kept++
			report(Event{inst, "keep"})
			continue
		}
		sum.Removed++
		sum.Freed += inst.Bytes + inst.CacheBytes
		report(Event{inst, "remove"})
	}
	return sum, nil
}

// goneCheckouts are the checkouts of inst's project, other than its root,
// that the undo store keeps snapshots of and that are gone, as a root is
// (a worktree removed).
func goneCheckouts(stateDir string, inst Instance, mounts Mounts) []string {
	var gone []string
	for _, c := range undo.Checkouts(stateDir, inst.Root) {
		if c == inst.Root {
			continue
		}
		if _, err := os.Lstat(c); (errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR)) && !mounts.unmounted(c) {
			gone = append(gone, c)
		}
	}
	return gone
}

// remove deletes an instance while holding its lock, so no session can
// start in it meanwhile; false means a session holds it.
func remove(projects string, inst Instance, dryRun bool) (bool, error) {
	lock, err := instance.ProbeLock(inst.Dir)
	if err != nil {
		return false, err
	}
	if lock != nil {
		defer lock.Close()
		idle, err := instance.TryLockIdle(lock)
		if err != nil || !idle {
			return false, err
		}
	}
	if dryRun {
		return true, nil
	}
	// A killed supervisor's placeholders may lie outside the root that is
	// gone (in a git directory elsewhere).
	instance.RemovePlaceholders(inst.Dir)
	// The project is gone: a start left by a killed session would date
	// the first session of a project made anew at its path.
	instance.ForgetProject(inst.Dir)
	holdpoint.At("gc stand-ins removed")
	if err := untrusted.Rename(projects, inst.Hash, trashPrefix+inst.Hash); err != nil {
		return true, err
	}
	holdpoint.At("gc trashed")
	return true, finishRemoval(projects, inst.Hash, false)
}

// finishRemoval removes the records kept under hash (approvals, mounts,
// caches, the inbox's, the undo store), then the instance renamed to its
// trash: the records first, for a run killed between them leaves the
// trash, by which the next run knows the hash, and finishes. Records
// that a project made anew at the root since keeps (its instance is
// back under hash) are its own, and stay. The caller holds the
// instance's lock, or a session holds it (held): then its records stay.
func finishRemoval(projects, hash string, held bool) error {
	if _, err := os.Lstat(filepath.Join(projects, hash)); !held && errors.Is(err, fs.ErrNotExist) {
		if err := instance.RemoveRecords(filepath.Dir(projects), hash); err != nil {
			return err
		}
	}
	holdpoint.At("gc records removed")
	return untrusted.RemoveAll(projects, trashPrefix+hash)
}

// finishTrashed finishes the removal an interrupted run left in the trash,
// under the instance's lock, where a launch of a project made anew at its
// root waits meanwhile.
func finishTrashed(projects, hash string) error {
	lock, err := instance.ProbeLock(filepath.Join(projects, hash))
	if err != nil {
		return err
	}
	held := false
	if lock != nil {
		defer lock.Close()
		idle, err := instance.TryLockIdle(lock)
		held = err != nil || !idle
	}
	return finishRemoval(projects, hash, held)
}

// trashAndRemove renames the instance hash in projects to its trash name,
// then deletes it.
func trashAndRemove(projects, hash string) error {
	if err := untrusted.Rename(projects, hash, trashPrefix+hash); err != nil {
		return err
	}
	return untrusted.RemoveAll(projects, trashPrefix+hash)
}
