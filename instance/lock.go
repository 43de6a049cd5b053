package instance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/untrusted"
)

// A project's liveness lives in claudebox's state beside the instances,
// never in one: the sandbox writes its instance, and nothing it can reach
// may decide whether a session runs. Every supervisor of a running session
// holds the lock shared on a descriptor it keeps to itself; cleaning up
// after the last session, pruning and moving take it exclusively.
const liveDir = "live"

// livePath is the file named ext of the instance dir
// (<state>/projects/<hash>) in <state>/live.
func livePath(dir, ext string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(dir)), liveDir, filepath.Base(dir)+ext)
}

// OpenLock opens the session lock of the instance dir, creating it,
// without following a symlink.
func OpenLock(dir string) (*os.File, error) {
	path := livePath(dir, ".lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
}

// ProbeLock opens the session lock of the instance dir if one exists, and
// creates nothing: no lock means no session ever ran there.
func ProbeLock(dir string) (*os.File, error) {
	f, err := os.OpenFile(livePath(dir, ".lock"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

// LockShared blocks until f is held shared: by a session.
func LockShared(f *os.File) error { return flock(f, unix.LOCK_SH) }

// LockIdle blocks until f is held exclusively: no session is running.
func LockIdle(f *os.File) error { return flock(f, unix.LOCK_EX) }

// TryLockIdle takes f exclusively if no session holds it, without waiting.
func TryLockIdle(f *os.File) (bool, error) {
	err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}

// Leave releases a session's hold on lock and reports whether it was the
// last one: then lock is held exclusively, for the cleanup, until closed.
// Each session first lets go, then tries: of two ending together, one
// always finds the other gone. Another project's cleanup probes this lock
// exclusively for an instant (held), so a busy lock is tried a few times
// before the session concludes another one runs: the cleanup and exit
// audit are not to be skipped for a probe.
func Leave(lock *os.File) bool {
	if flock(lock, unix.LOCK_UN) != nil {
		return false
	}
	for try := 0; ; try++ {
		idle, err := TryLockIdle(lock)
		if err != nil || idle || try == 4 {
			return err == nil && idle
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// InUse reports whether a running session holds the instance dir.
func InUse(dir string) bool {
	f, err := ProbeLock(dir)
	if err != nil || f == nil {
		return false
	}
	defer f.Close()
	idle, err := TryLockIdle(f)
	return err == nil && !idle
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// Placeholders have owners: every project whose sessions guard a path
// records it in its <hash>.placeholders, and the project owns it while a
// session holds its lock. Projects overlap (a session in ~/code guards
// ~/code/x/.git/commondir, and so does one in ~/code/x), so a placeholder
// goes only when no live project records it: removing it detaches the
// guard of every sandbox that stands on it. The records are made, and
// placeholders created and removed, under one lock for all projects,
// <state>/live/placeholders.lock.
const registryLock = "placeholders.lock"

// recordLimit bounds a record read back: far beyond what sessions write.
const recordLimit = 4 << 20

// Tick waits (a few milliseconds at most: the filesystem's clock is
// coarse) until a file changed now would be dated after everything the
// launch wrote before it (the stand-ins in .git): the session's start
// record takes what changed in its own tick for the session's, and would
// take the launch's writes so, and an index there for one the session
// wrote.
func Tick(dir string) {
	path := livePath(dir, ".tick")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		return
	}
	defer os.Remove(path)
	var first, now unix.Stat_t
	if unix.Lstat(path, &first) != nil {
		return
	}
	for deadline := time.Now().Add(100 * time.Millisecond); time.Now().Before(deadline); {
		if unix.Chmod(path, 0o600) != nil || unix.Lstat(path, &now) != nil || now.Ctim != first.Ctim {
			return
		}
	}
}

// LockWorktrees takes the lock that keeps the list of the instance dir's
// repository's worktrees as a launch probed it until that launch's
// stand-ins stand: -w holds it exclusively while git adds a worktree,
// whose files would otherwise appear where the launch is making stand-ins
// for them. Like the others, it lies out of every sandbox's reach.
func LockWorktrees(dir string) (*os.File, error) {
	path := livePath(dir, ".worktrees")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f, unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WaitWorktrees holds LockWorktrees shared, for a launch, which creates
// nothing before it is approved: where no -w ever made the lock there is
// nothing to wait for, and f is nil.
func WaitWorktrees(dir string) *os.File {
	f, err := os.OpenFile(livePath(dir, ".worktrees"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	if flock(f, unix.LOCK_SH) != nil {
		f.Close()
		return nil
	}
	return f
}

// LockPlaceholders takes the lock under which placeholders are recorded,
// created and removed, for the instance dir's state; unlock releases it.
func LockPlaceholders(dir string) (unlock func(), err error) {
	live := filepath.Dir(livePath(dir, ""))
	if err := os.MkdirAll(live, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(live, registryLock), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f, unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// RecordPlaceholders adds paths to the instance's record of the stand-ins
// its sessions use on the host, with LockPlaceholders held, before they
// are made, so that whoever cleans up after a session that never finished
// knows them.
func RecordPlaceholders(dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	f, err := os.OpenFile(livePath(dir, ".placeholders"), os.O_WRONLY|os.O_APPEND|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range paths {
		if !strings.Contains(p, "\n") {
			b.WriteString(p + "\n")
		}
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RemovePlaceholders removes, with the instance's lock held exclusively,
// each stand-in its record names that is still one (a path the user has
// since written, or replaced, is theirs and stays), and each worktrees
// folder's keeper (ReleaseKeeper), that no other live
// project records, then the record. When it cannot tell (another record
// unreadable, a path reached through a symlink), the placeholder stays.
// It returns the paths it removed.
func RemovePlaceholders(dir string) (removed []string) {
	// No session of the project can be recording meanwhile.
	if _, err := os.Lstat(livePath(dir, ".placeholders")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := LockPlaceholders(dir)
	if err != nil {
		return nil
	}
	defer unlock()
	live, name := filepath.Split(livePath(dir, ".placeholders"))
	ours, err := readRecord(live, name)
	if err != nil {
		return nil
	}
	owned, err := ownedElsewhere(live, name)
	if err != nil {
		return nil
	}
	// Deepest first: a placeholder directory may hold nothing but a
	// placeholder made inside an earlier one.
	slices.SortFunc(ours, func(a, b string) int { return len(b) - len(a) })
	var gone []string
	for _, p := range ours {
		switch {
		case owned[p]:
		case isKeeper(p):
			if ReleaseKeeper(filepath.Dir(p)) {
				removed = append(removed, p)
			}
		case removeStandIn(p):
			removed = append(removed, p)
		case !exists(p):
			gone = append(gone, p)
		}
	}
	removed = append(removed, removeTakenAside(gone)...)
	os.Remove(filepath.Join(live, name))
	return removed
}

// exists reports whether something is at path, reached without a symlink.
func exists(path string) bool {
	_, err := untrusted.Lstat("/", strings.TrimPrefix(path, "/"))
	return !errors.Is(err, fs.ErrNotExist)
}

// removeTakenAside removes, beside each stand-in no longer at its path, a
// stand-in a removal killed midway left under its aside name
// (untrusted.RemoveIf), and returns the paths it removed. Only what is a
// stand-in for a path of that directory goes: the sandbox may name
// anything so.
func removeTakenAside(gone []string) (removed []string) {
	byDir := map[string][]string{}
	for _, p := range gone {
		byDir[filepath.Dir(p)] = append(byDir[filepath.Dir(p)], p)
	}
	for dir, ps := range byDir {
		entries, err := untrusted.ReadDir("/", strings.TrimPrefix(dir, "/"))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), untrusted.AsidePrefix) {
				continue
			}
			aside := filepath.Join(dir, e.Name())
			ok, err := untrusted.RemoveIf("/", strings.TrimPrefix(aside, "/"), func(fi os.FileInfo, f *os.File) bool {
				return slices.ContainsFunc(ps, func(p string) bool { return standIn(p, fi, f) })
			})
			if ok && err == nil {
				removed = append(removed, aside)
			}
		}
	}
	return removed
}

// SweepKilled removes the stand-ins of every project in the state dir
// none of whose sessions runs, and returns the paths it removed, by
// instance directory: a killed supervisor removes nothing, and what it
// left in the user's project is not to wait for the next launch there.
// The records it reads are the host's own (<state>/live), never the
// sandbox's.
func SweepKilled(state string) map[string][]string {
	live := filepath.Join(state, liveDir)
	entries, err := os.ReadDir(live)
	if err != nil {
		return nil
	}
	removed := map[string][]string{}
	for _, e := range entries {
		hash, ok := strings.CutSuffix(e.Name(), ".placeholders")
		if !ok || !IsHash(hash) {
			continue
		}
		// Held exclusively while removing: a launch in the project waits,
		// and makes its stand-ins after.
		f, err := os.OpenFile(filepath.Join(live, hash+".lock"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if idle, err := TryLockIdle(f); err == nil && idle {
			dir := filepath.Join(state, "projects", hash)
			if gone := RemovePlaceholders(dir); len(gone) > 0 {
				removed[dir] = gone
			}
		}
		f.Close()
	}
	return removed
}

// readRecord reads a placeholder record in live: its absolute, clean
// paths, once each. A missing record names nothing.
func readRecord(live, name string) ([]string, error) {
	b, err := untrusted.ReadFile(live, name, recordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(b), "\n") {
		if filepath.IsAbs(p) && filepath.Clean(p) == p && !strings.ContainsRune(p, 0) && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// ownedElsewhere returns the paths recorded by the projects in live other
// than the record ours whose sessions run (or whose lock is held, for a
// cleanup or a move: they are treated as running).
func ownedElsewhere(live, ours string) (map[string]bool, error) {
	entries, err := os.ReadDir(live)
	if err != nil {
		return nil, err
	}
	owned := map[string]bool{}
	for _, e := range entries {
		hash, ok := strings.CutSuffix(e.Name(), ".placeholders")
		if !ok || !IsHash(hash) || e.Name() == ours || !held(live, hash) {
			continue
		}
		paths, err := readRecord(live, e.Name())
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			owned[p] = true
		}
	}
	return owned, nil
}

// held reports whether a session (or anyone) holds the lock of the
// instance hash in live. A lock that cannot be opened counts as held: a
// launch makes the lock before the record, and a killed supervisor's lock
// stays, free.
// Running says whether a session of the instance named hash runs, or a
// cleanup or move holds its lock, under the state directory.
func Running(state, hash string) bool { return held(filepath.Join(state, liveDir), hash) }

func held(live, hash string) bool {
	f, err := os.OpenFile(filepath.Join(live, hash+".lock"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return true
	}
	defer f.Close()
	idle, err := TryLockIdle(f)
	return err != nil || !idle
}

// removeStandIn removes path if it is a stand-in, reached without a
// symlink on the way: the projects' paths are real paths, so a link there
// is the sandbox's.
func removeStandIn(path string) bool {
	// From the root, no symlink on the way: a path reached through one is
	// not where the placeholder was made.
	removed, err := untrusted.RemoveIf("/", strings.TrimPrefix(path, "/"), func(fi os.FileInfo, f *os.File) bool {
		return standIn(path, fi, f)
	})
	return removed && err == nil
}

// MarkStart records when the first of the project's running sessions
// began, as the ctime of <state>/live/<hash>.since (the kernel stamps it
// from its clock, and unlike the mtime no call sets it back); the sessions
// after it find it there. The record names the directory at root it was
// made for: a project deleted and made anew at the same path has the same
// instance, and no session of it began then. It reports whether this
// session is the first.
func MarkStart(dir, root string) (bool, error) {
	id, _, err := identity(root)
	if err != nil {
		return false, err
	}
	f, err := os.OpenFile(livePath(dir, ".since"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(id)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return true, err
}

// identity names the directory at root, as a line: its device and inode,
// and its birth where the filesystem keeps one (a directory made anew may
// get the inode number of the one removed); born is zero where it keeps
// none.
func identity(root string) (line string, born time.Time, err error) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, root, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return "", time.Time{}, err
	}
	birth := "-"
	if st.Mask&unix.STATX_BTIME != 0 {
		born = time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
		birth = fmt.Sprintf("%d.%09d", st.Btime.Sec, st.Btime.Nsec)
	}
	return fmt.Sprintf("%d:%d %d %s\n", st.Dev_major, st.Dev_minor, st.Ino, birth), born, nil
}

// StampSnapshot begins the record of what the project held when the first
// session's sandbox started, and returns that moment, on the kernel's
// clock: what changed at or after it cannot be in the record.
func StampSnapshot(dir string) (time.Time, error) {
	f, err := os.OpenFile(livePath(dir, ".snapshot"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return time.Time{}, err
	}
	return time.Unix(st.Ctim.Unix()), nil
}

// SaveSnapshot completes the record StampSnapshot began, atomically.
func SaveSnapshot(dir string, b []byte) error {
	return replaceRecord(livePath(dir, ".snapshot"), b)
}

// replaceRecord replaces the live record at path whole, by rename, and
// unsynced, at every launch: one a crash lost counts as none (the audit
// then skips less).
func replaceRecord(path string, b []byte) error {
	return atomicfile.WriteFrom(path, 0o600, false, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Snapshot reads the record SaveSnapshot completed; it is empty if the
// session that took it did not finish it.
func Snapshot(dir string) []byte {
	b, _ := os.ReadFile(livePath(dir, ".snapshot"))
	return b
}

// A Start is when the project's sessions began.
type Start struct {
	At time.Time
	// Proven says the record names the directory now at the project's
	// root. One without a name (cut short by a crash, or made by a
	// claudebox that wrote none) still dates the exit audit, which fails
	// closed, but claudebox says nothing on its strength alone.
	Proven bool
}

// Started reports when the project's sessions at root began, if they did
// not all end yet, or ended without their audit. A record made for
// another directory at root, or before the directory there was born, is
// none of this project's (ForgetStart removes it).
func Started(dir, root string) (Start, bool) {
	live, name := filepath.Split(livePath(dir, ".since"))
	var st unix.Stat_t
	if unix.Lstat(filepath.Join(live, name), &st) != nil {
		return Start{}, false
	}
	at := time.Unix(st.Ctim.Unix())
	id, born, err := identity(root)
	if err != nil || born.After(at) {
		return Start{}, false
	}
	b, err := untrusted.ReadFile(live, name, recordLimit)
	switch {
	case errors.Is(err, untrusted.ErrTooLarge) || err == nil && len(b) > 0 && string(b) != id:
		return Start{}, false
	case err != nil || len(b) == 0:
		return Start{At: at}, true
	}
	return Start{At: at, Proven: true}, true
}

// StartedAt is when the sessions of the instance dir began, as the record
// MarkStart began says, for a command that does not know the project's
// root (Started proves the record is the root's).
func StartedAt(dir string) (time.Time, bool) {
	var st unix.Stat_t
	if unix.Lstat(livePath(dir, ".since"), &st) != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}

// ForgetStart ends the record MarkStart began, once its audit is done;
// the record SaveSnapshot completed stays, as the next one's base.
func ForgetStart(dir string) {
	if os.Rename(livePath(dir, ".snapshot"), livePath(dir, ".base")) != nil {
		os.Remove(livePath(dir, ".snapshot"))
	}
	os.Remove(livePath(dir, ".audit"))
	os.Remove(livePath(dir, ".guards"))
	os.Remove(livePath(dir, ".since"))
	forgetCheckouts(dir)
}

// ForgetProject removes every record of the project's sessions' starts,
// the last audited one too: the project is gone, and one made anew at its
// path is another.
func ForgetProject(dir string) {
	for _, ext := range []string{".since", ".snapshot", ".base", ".audit", ".guards"} {
		os.Remove(livePath(dir, ext))
	}
	forgetCheckouts(dir)
}

// A checkout that sessions reached after the first began (a linked
// worktree that -w made while another session ran) has a start of its
// own: its first session records it as it found it, and the exit audit
// judges it against that, not against a time before git made it. Later
// sessions in a checkout reached before find its mark and record nothing:
// what the earlier ones wrote there stays a change. No other session of
// the project can write a checkout before its first session starts: each
// sees its own.

// checkoutExt names a checkout's records among the instance dir's.
func checkoutExt(kind, checkout string) string {
	sum := sha256.Sum256([]byte(checkout))
	return kind + "-" + hex.EncodeToString(sum[:8])
}

// MarkCheckout records that the project's sessions reached checkout; it
// reports whether this session is the first there since they began.
func MarkCheckout(dir, checkout string) (bool, error) {
	f, err := os.OpenFile(livePath(dir, checkoutExt(".since", checkout)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
}

// CheckoutStarted is when the first session in checkout began.
func CheckoutStarted(dir, checkout string) (time.Time, bool) {
	var st unix.Stat_t
	if unix.Lstat(livePath(dir, checkoutExt(".since", checkout)), &st) != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}

// SaveCheckoutSnapshot keeps the record of checkout as its first session
// found it, atomically.
func SaveCheckoutSnapshot(dir, checkout string, b []byte) error {
	return replaceRecord(livePath(dir, checkoutExt(".snapshot", checkout)), b)
}

// CheckoutSnapshot reads what SaveCheckoutSnapshot kept; it is empty if
// there is none.
func CheckoutSnapshot(dir, checkout string) []byte {
	b, _ := os.ReadFile(livePath(dir, checkoutExt(".snapshot", checkout)))
	return b
}

// What -w made: the files git writes for a new worktree in the
// repository's git directory, where the sandbox of a session already
// running could write too, even before git worktree add has ended.
// Recorded by identity (inode and status change) out of every sandbox's
// reach, each only while it holds exactly what git writes there, they
// are the host's while they keep it; one the sandbox wrote or replaced
// since is not.

// RecordMade adds to the instance dir's record of what claudebox made for
// its sessions each of files (absolute paths, reached without a symlink)
// that is a regular file holding exactly the content it maps to; its
// identity is the one of the file whose content was read.
func RecordMade(dir string, files map[string][]byte) error {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if strings.ContainsRune(p, '\n') || !filepath.IsAbs(p) {
			continue
		}
		f, err := untrusted.Open("/", strings.TrimPrefix(filepath.Clean(p), "/"))
		if err != nil {
			continue
		}
		var st unix.Stat_t
		err = unix.Fstat(int(f.Fd()), &st)
		data, rerr := io.ReadAll(io.LimitReader(f, int64(len(files[p]))+1))
		f.Close()
		if err == nil && rerr == nil && bytes.Equal(data, files[p]) {
			fmt.Fprintf(&b, "%d %d %s\n", st.Ino, st.Ctim.Nano(), p)
		}
	}
	f, err := os.OpenFile(livePath(dir, ".made"), os.O_WRONLY|os.O_CREATE|os.O_APPEND|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Made lists the paths RecordMade recorded that are still as made.
func Made(dir string) []string {
	b, err := untrusted.ReadFile(filepath.Dir(livePath(dir, "")), filepath.Base(livePath(dir, ".made")), recordLimit)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		var ino uint64
		var ctime int64
		var path string
		if n, _ := fmt.Sscanf(line, "%d %d ", &ino, &ctime); n != 2 {
			continue
		}
		if f := strings.SplitN(line, " ", 3); len(f) == 3 {
			path = f[2]
		}
		var st unix.Stat_t
		if path != "" && unix.Lstat(path, &st) == nil && st.Ino == ino && st.Ctim.Nano() == ctime {
			out = append(out, path)
		}
	}
	return out
}

func forgetCheckouts(dir string) {
	os.Remove(livePath(dir, ".made"))
	live := filepath.Dir(livePath(dir, ""))
	entries, _ := os.ReadDir(live)
	for _, e := range entries {
		for _, kind := range []string{".since-", ".snapshot-"} {
			if strings.HasPrefix(e.Name(), filepath.Base(dir)+kind) {
				os.Remove(filepath.Join(live, e.Name()))
			}
		}
	}
}

// BaseSnapshot reads the record of the project's last audited sessions'
// start, which a new record may build on; it is never the start record
// of another session's audit.
func BaseSnapshot(dir string) []byte {
	b, _ := os.ReadFile(livePath(dir, ".base"))
	return b
}

// SweepIdle removes what sessions of the instance dir, of the project at
// root, left on the host when none is running: a supervisor that was
// killed cleans up nothing. A start record that is not the project's goes
// too; one that is stays, for the next session's exit audit.
func SweepIdle(dir, root string) {
	f, err := ProbeLock(dir)
	if err != nil || f == nil {
		return
	}
	defer f.Close()
	if idle, err := TryLockIdle(f); err == nil && idle {
		RemovePlaceholders(dir)
		if _, ok := Started(dir, root); !ok {
			ForgetStart(dir)
		}
	}
}

// IsPlaceholder reports whether path is a stand-in a launch made.
func IsPlaceholder(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && IsStandIn(path, fi)
}

// IsStandIn reports whether path, of info fi, is a stand-in a launch made.
// The host's tools read them as nothing, and nobody makes them by hand: a
// directory, empty, of mode 1555 (read-only, sticky); for a file, a socket
// nothing listens on, of mode 000 (git and grep -r pass it over, opening
// it fails at once); or a no-op file, mode StandInMode with exactly
// StandInContent. Earlier launches made them empty and of mode 000.
func IsStandIn(path string, fi os.FileInfo) bool {
	var f *os.File
	if fi.IsDir() || fi.Mode().IsRegular() {
		f, _ = os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		if f != nil {
			defer f.Close()
		}
	}
	return standIn(path, fi, f)
}

// standIn is IsStandIn with f open to read what fi describes, or nil.
func standIn(path string, fi os.FileInfo, f *os.File) bool {
	if f != nil {
		if ffi, err := f.Stat(); err != nil || !os.SameFile(fi, ffi) {
			f = nil
		}
	}
	m := fi.Mode()
	switch {
	case m.IsDir() && m&(os.ModeSticky|os.ModePerm) == StandInDirMode && emptyDir(f),
		m&os.ModeSocket != 0 && m.Perm() == 0,
		m&(os.ModeSticky|os.ModePerm) == 0 && (m.IsDir() || m.IsRegular() && fi.Size() == 0):
		return true
	}
	want := StandInContent(path)
	if f == nil || !m.IsRegular() || m.Perm() != StandInMode || fi.Size() != int64(len(want)) {
		return false
	}
	b := make([]byte, len(want)+1)
	n, _ := io.ReadFull(f, b)
	return bytes.Equal(b[:n], want)
}

// emptyDir reports whether the directory open on f holds nothing.
func emptyDir(f *os.File) bool {
	if f == nil {
		return false
	}
	names, err := f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// StandInDirMode marks a stand-in directory: readable, so that the host's
// git status, grep -r, tar and cp -r see an empty directory, not an error.
const StandInDirMode = os.ModeSticky | 0o555

// StandInMode marks a no-op stand-in, with its exact content.
const StandInMode = 0o444

// StandInContent is what git reads as nothing at path: a commondir naming
// the git dir it is in, or a comment in a config or attributes file.
func StandInContent(path string) []byte {
	if filepath.Base(path) == "commondir" {
		return []byte(".\n")
	}
	return []byte("# claudebox: a stand-in while a session runs, removed after it\n")
}

// HoldCheckout says, for as long as the returned file stays open, that a
// session of the instance dir runs in checkout: it holds a lock of the
// checkout's shared, as the session lock is.
func HoldCheckout(dir, checkout string) (*os.File, error) {
	f, err := os.OpenFile(livePath(dir, "."+Hash(checkout)+".checkout"), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f, unix.LOCK_SH); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckoutInUse says whether a session of the instance dir runs in
// checkout.
func CheckoutInUse(dir, checkout string) bool {
	f, err := os.OpenFile(livePath(dir, "."+Hash(checkout)+".checkout"), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	idle, err := TryLockIdle(f)
	return err == nil && !idle
}

// maxSeats bounds the sessions of one instance told apart by a seat:
// past it, a session shares the last seat's.
const maxSeats = 64

// TakeSeat gives a session of the instance dir the lowest seat no running
// session of it holds, for as long as the returned file stays open: the
// first session of a project takes seat 0, one started beside it seat 1.
// A seat outlives no session (an exclusive lock the kernel lets go with
// its holder), so sessions one after another take the same seat.
func TakeSeat(dir string) (int, *os.File, error) {
	for seat := 0; ; seat++ {
		f, err := os.OpenFile(livePath(dir, ".seat"+strconv.Itoa(seat)), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return 0, nil, err
		}
		if seat == maxSeats-1 {
			return seat, f, nil
		}
		err = flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return seat, f, nil
		}
		f.Close()
		if err != unix.EWOULDBLOCK {
			return 0, nil, err
		}
	}
}
