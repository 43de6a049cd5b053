package instance

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// LockFile names the instance's session lock. Every running session holds
// it shared, through the descriptor bwrap inherits, so it is released only
// when the last process of the sandbox is gone. Cleaning up after sessions,
// and pruning, take it exclusively.
const LockFile = "session.lock"

// OpenLock opens the instance's lock file, creating it, without following
// a symlink.
func OpenLock(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
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

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}
