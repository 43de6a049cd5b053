package audit

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/untrusted"
)

// Reopened is a directory of the user's that the session had closed,
// given its owner's permissions back, or a file given its owner's read
// permission back (File): its path, and the permissions the session had
// left it.
type Reopened struct {
	Path string
	Had  fs.FileMode
	File bool
}

// Reopener gives a directory of the user's below a checkout's root that
// the session closed (chmod 000 .git/objects, or one of its loose
// objects' directories, which no record keeps) its owner's read, write
// and search permission back, as the exit's walks meet it: closed, they
// could not look in, and took it whole, the user's repository with it.
// Once open it is examined as any other. A directory is the user's when
// the file system says it was born before the sessions began (a birth
// time no one can set); where it keeps no birth time, when the start's
// record holds its inode at its path. What the session made and closed is
// no one's but the session's, and is still taken whole; one its owner
// closed before (its status older than the sessions' start) stays closed,
// as do the stand-ins (claudebox's, closed by it). Nothing is looked at
// until a walk meets a directory it cannot enter or whose owner lacks a
// permission: a large checkout's record is not read at each exit.
type Reopener struct {
	root     string
	since    time.Time
	start    *Snapshot
	standIns []string
	mu       sync.Mutex
	reopened []Reopened
	// read are the statuses of directories one of the exit's walks (the
	// audit's, the record's) read, for the other (Read, Status);
	// touched, what the exit changes while they read: each stand-in, the
	// directory holding it (removed, or renamed aside there), and each
	// directory given back.
	readMu  sync.RWMutex
	read    map[string]dirStatus
	touched map[string]bool
}

// dirStatus is what Status gives of a directory's status.
type dirStatus struct {
	dev, ino uint64
	ctime    unix.Timespec
	mode     uint32
}

// NewReopener is the Reopener of the checkout root, whose sessions began
// at since, start their start's record (nil if none), standIns the
// sessions' stand-ins.
func NewReopener(root string, since time.Time, start *Snapshot, standIns []string) *Reopener {
	if start != nil && start.Root != root {
		start = nil
	}
	touched := map[string]bool{}
	for _, p := range standIns {
		if rel, err := filepath.Rel(root, p); err == nil && filepath.IsLocal(rel) {
			touched[rel], touched[filepath.Dir(rel)] = true, true
		}
	}
	// As large as the start's record (most of its items are
	// directories, each of whose statuses a walk hands on) up to a bound:
	// grown a directory at a time, the map of a million files' 50,000
	// directories was rehashed under its lock while both walks waited.
	size := 0
	if start != nil {
		size = min(len(start.files.items), maxHanded)
	}
	return &Reopener{root: root, since: since, start: start, standIns: standIns, read: make(map[string]dirStatus, size), touched: touched}
}

// maxHanded bounds the room the map of handed statuses is made with.
const maxHanded = 1 << 17

// Read keeps st, the status one of the exit's walks read of the
// directory at rel, for the other (Status): only one the exit does not
// change while they read, which the other would read again alike. A
// stand-in's directory is changed by its removal; one whose owner lacks a
// permission may be given back (a status read before no longer holds);
// one the session changed is no use to either. r may be nil.
func (r *Reopener) Read(rel string, st *unix.Stat_t) {
	if r == nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o700 != 0o700 || !time.Unix(st.Ctim.Unix()).Before(r.since) {
		return
	}
	r.readMu.Lock()
	if !r.touched[rel] {
		r.read[rel] = dirStatus{st.Dev, st.Ino, st.Ctim, st.Mode}
	}
	r.readMu.Unlock()
}

// Status gives, in st's device, inode, status change time and mode, the
// status the other of the exit's walks read of the directory at rel
// (Read), and says whether there is one: a walk need not read it again.
// r may be nil.
func (r *Reopener) Status(rel string, st *unix.Stat_t) bool {
	if r == nil {
		return false
	}
	r.readMu.RLock()
	s, ok := r.read[rel]
	r.readMu.RUnlock()
	if !ok {
		return false
	}
	st.Dev, st.Ino, st.Ctim, st.Mode = s.dev, s.ino, s.ctime, s.mode
	return true
}

// dirFlags open a directory to read it, never through a symlink, nor
// waiting on what is no directory.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK

// OpenDir opens the directory name in the directory dirfd, at rel below
// the root, to read it; refused (EACCES), the directory is given back if
// it is the user's and opened again. r may be nil.
func (r *Reopener) OpenDir(dirfd int, name, rel string) (int, error) {
	fd, err := unix.Openat(dirfd, name, dirFlags, 0)
	if err != unix.EACCES || r == nil {
		return fd, err
	}
	p, perr := unix.Openat(dirfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if perr != nil {
		return fd, err
	}
	open := r.giveBack(p, rel)
	unix.Close(p)
	if !open {
		return fd, err
	}
	return unix.Openat(dirfd, name, dirFlags, 0)
}

// Opened gives back the directory open at fd, at rel, of status st, if
// its owner lacks a permission (chmod 400 or 500: read, it can still be
// opened) and it is the user's. r may be nil.
func (r *Reopener) Opened(fd int, rel string, st *unix.Stat_t) {
	if r != nil && st.Mode&0o700 != 0o700 {
		r.giveBack(fd, rel)
	}
}

// Ancestors gives back each directory between the root and path (below
// the root, and path's own parent), top first: what the exit reaches by
// its path (the stand-ins, the guarded files) lies below them.
func (r *Reopener) Ancestors(path string) {
	rel, err := filepath.Rel(r.root, filepath.Dir(path))
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return
	}
	fd, err := unix.Open(r.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	at := ""
	for name := range strings.SplitSeq(rel, "/") {
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return
		}
		fd, at = next, filepath.Join(at, name)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&0o700 != 0o700 {
			r.giveBack(fd, at)
		}
	}
	unix.Close(fd)
}

// ReadableAgain gives the regular file name in the directory dirfd, at
// rel, its owner's read permission back if the session took it away and
// the file is the user's (born before the sessions began, as giveBack
// judges a directory), and says whether it did: unreadable, a pack, a
// loose object or HEAD was taken for the session's and moved aside, and
// the host's git failed until the user put it back. What the file holds
// is then judged as any other's. r may be nil.
func (r *Reopener) ReadableAgain(dirfd int, name, rel string) bool {
	if r == nil {
		return false
	}
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o400 != 0 || !r.users(fd, rel, &st) {
		return false
	}
	had, ok, err := untrusted.ReadableFD(fd, st.Ino)
	if err != nil || !ok {
		return false
	}
	r.mu.Lock()
	r.reopened = append(r.reopened, Reopened{Path: filepath.Join(r.root, rel), Had: had, File: true})
	r.mu.Unlock()
	return true
}

// users says whether what is open at fd, at rel, of status st, is the
// user's and its status changed during the sessions: not a stand-in,
// changed after they began, and born before (by its birth time, or where
// the file system keeps none, the start's record holding its inode at
// rel).
func (r *Reopener) users(fd int, rel string, st *unix.Stat_t) bool {
	// Status times are the kernel's coarse clock: one on since's tick is
	// the launch's (read permission lent to copy a hard link, just before
	// it marked the start), as no sandbox runs yet.
	if !time.Unix(st.Ctim.Unix()).After(r.since) || slices.Contains(r.standIns, filepath.Join(r.root, rel)) {
		return false
	}
	// One made since in one's place may have its inode's number; where
	// the file system says when it was born, that is the word.
	var sx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &sx) == nil && sx.Mask&unix.STATX_BTIME != 0 {
		return time.Unix(sx.Btime.Sec, int64(sx.Btime.Nsec)).Before(r.since)
	}
	if r.start == nil || st.Dev != r.start.Dev {
		return false
	}
	ino, ok := r.start.files.inode(rel)
	return ok && ino == st.Ino
}

// giveBack gives the directory open at fd, at rel, its owner's
// permissions back if it is the user's, closed during the sessions; it
// says whether its owner now has them.
func (r *Reopener) giveBack(fd int, rel string) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	if st.Mode&0o700 == 0o700 {
		return true // given back by another walk
	}
	if !r.users(fd, rel, &st) {
		return false
	}
	// Changed now: a status read before is the walk's own to read again.
	r.readMu.Lock()
	r.touched[rel] = true
	delete(r.read, rel)
	r.readMu.Unlock()
	had, ok, err := untrusted.GiveBackFD(fd, st.Ino)
	if err != nil {
		return false
	}
	if ok {
		r.mu.Lock()
		r.reopened = append(r.reopened, Reopened{Path: filepath.Join(r.root, rel), Had: had})
		r.mu.Unlock()
	}
	return true
}

// Reopened are the directories given back, by path.
func (r *Reopener) Reopened() []Reopened {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.SortedFunc(slices.Values(r.reopened), func(a, b Reopened) int { return strings.Compare(a.Path, b.Path) })
}
