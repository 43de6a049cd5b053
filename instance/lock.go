package instance

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
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
// always finds the other gone.
func Leave(lock *os.File) bool {
	if flock(lock, unix.LOCK_UN) != nil {
		return false
	}
	idle, err := TryLockIdle(lock)
	return err == nil && idle
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

// RecordPlaceholders adds paths to the instance's record of the stand-ins
// its sessions made on the host, before they are made, so that whoever
// cleans up after a session that never finished knows them. Each line is
// one append: concurrent sessions' records interleave whole.
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
// each recorded stand-in that is still one (a path the user has since
// written, or replaced, is theirs and stays), then the record.
func RemovePlaceholders(dir string) {
	record := livePath(dir, ".placeholders")
	f, err := os.OpenFile(record, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	var paths []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := sc.Text(); filepath.IsAbs(p) && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	f.Close()
	// Deepest first: a placeholder directory may hold nothing but a
	// placeholder made inside an earlier one.
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) })
	for _, p := range paths {
		if IsPlaceholder(p) {
			os.Remove(p)
		}
	}
	os.Remove(record)
}

// MarkStart records when the first of the project's running sessions
// began, as the ctime of <state>/live/<hash>.since (the kernel's clock,
// which no one can set back); the sessions after it find it there. It
// reports whether this session is the first.
func MarkStart(dir string) (bool, error) {
	f, err := os.OpenFile(livePath(dir, ".since"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
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
	path := livePath(dir, ".snapshot")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Snapshot reads the record SaveSnapshot completed; it is empty if the
// session that took it did not finish it.
func Snapshot(dir string) []byte {
	b, _ := os.ReadFile(livePath(dir, ".snapshot"))
	return b
}

// Started reports when the project's sessions began, if they did not all
// end yet, or ended without their audit.
func Started(dir string) (time.Time, bool) {
	var st unix.Stat_t
	if unix.Lstat(livePath(dir, ".since"), &st) != nil {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}

// ForgetStart ends the record MarkStart began, once its audit is done.
func ForgetStart(dir string) {
	os.Remove(livePath(dir, ".snapshot"))
	os.Remove(livePath(dir, ".since"))
}

// SweepIdle removes what sessions of the instance dir left on the host
// when none is running: a supervisor that was killed cleans up nothing.
func SweepIdle(dir string) {
	f, err := ProbeLock(dir)
	if err != nil || f == nil {
		return
	}
	defer f.Close()
	if idle, err := TryLockIdle(f); err == nil && idle {
		RemovePlaceholders(dir)
	}
}

// IsPlaceholder reports whether path is a stand-in a launch made.
func IsPlaceholder(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && IsStandIn(path, fi)
}

// IsStandIn reports whether path, of info fi, is a stand-in a launch made:
// mode 000, which nobody makes by hand, and for a file, empty (a directory
// with mode 000 cannot be listed; removing it fails if it is not empty); or
// a no-op file, mode StandInMode with exactly StandInContent.
func IsStandIn(path string, fi os.FileInfo) bool {
	if fi.Mode().Perm() == 0 && (fi.IsDir() || fi.Mode().IsRegular() && fi.Size() == 0) {
		return true
	}
	want := StandInContent(path)
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != StandInMode || fi.Size() != int64(len(want)) {
		return false
	}
	b, err := readGitFile(path, int64(len(want)))
	return err == nil && bytes.Equal(b, want)
}

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
