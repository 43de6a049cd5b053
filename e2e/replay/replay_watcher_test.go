package replay

import (
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The guard watcher's replay suite: a hostile sandbox gets hold of the file
// the host's git config is about to rename over .git/config (its
// .git/config.lock, in .git, which the sandbox writes), in a way the
// watcher's "still held" check once could not see, and writes a
// core.fsmonitor into it after the rename. The host side proves each: the
// .git/config the host obeys is what the host wrote, and the host's git
// status runs nothing the sandbox planted.

// TestReplayWatcherMprotect: the lock mapped shared but read-only, its
// descriptor closed; after the rename, mprotect makes the mapping writable.
func TestReplayWatcherMprotect(t *testing.T) { harness.HeldLock(t, "mprotect") }

// TestReplayWatcherSocket: the lock's descriptor sent over a Unix socket
// and closed by its sender, so no process holds it while the watcher looks;
// received after the rename and written.
func TestReplayWatcherSocket(t *testing.T) { harness.HeldLock(t, "socket") }

// TestReplayWatcherReopen: an O_PATH descriptor of the lock, which no
// write needs, sent over a Unix socket and closed; after the rename it is
// received and reopened for writing through /proc/self/fd, on the
// project's writable mount.
func TestReplayWatcherReopen(t *testing.T) { harness.HeldLock(t, "reopen") }

// TestReplayWatcherThread: the lock opened by a thread that unshared its
// descriptor table; /proc/PID/fd shows the main thread's table only.
func TestReplayWatcherThread(t *testing.T) { harness.HeldLock(t, "thread") }
