package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claudebox/claudebox/paths"
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
func TestReplayWatcherMprotect(t *testing.T) { replayHeldLock(t, "mprotect") }

// TestReplayWatcherSocket: the lock's descriptor sent over a Unix socket
// and closed by its sender, so no process holds it while the watcher looks;
// received after the rename and written.
func TestReplayWatcherSocket(t *testing.T) { replayHeldLock(t, "socket") }

// TestReplayWatcherReopen: an O_PATH descriptor of the lock, which no
// write needs, sent over a Unix socket and closed; after the rename it is
// received and reopened for writing through /proc/self/fd, on the
// project's writable mount.
func TestReplayWatcherReopen(t *testing.T) { replayHeldLock(t, "reopen") }

// TestReplayWatcherThread: the lock opened by a thread that unshared its
// descriptor table; /proc/PID/fd shows the main thread's table only.
func TestReplayWatcherThread(t *testing.T) { replayHeldLock(t, "thread") }

// replayHeldLock runs the host's git config (its steps one by one, so the
// sandbox is sure to catch the lock) against guardattack HOW, lets the
// sandbox write once the session has run on for a while, and checks the
// host side.
func replayHeldLock(t *testing.T, how string) {
	h := newE2EHost(t)
	repo := filepath.Join(h.home, "code", "repo")
	h.gitRepo(repo)
	self, _ := os.Executable()
	h.copyFile(self, filepath.Join(repo, "guardattack"), 0o755)
	h.chown()
	marker := filepath.Join(h.base, "marker")
	config := filepath.Join(repo, ".git", "config")
	payload := `[core] fsmonitor = "touch ` + marker + `"`
	out, exited := startShell(t, h, repo, `touch started; exec ./guardattack `+how+` .git/config.lock '`+payload+`'`)
	h.run(repo, nil, "sh", "-c", `set -C; cat .git/config > .git/config.lock && printf '[x]\n\ty = 1\n' >> .git/config.lock`)
	written, _ := os.ReadFile(config + ".lock")
	waitFor(t, "the sandbox to catch the lock", func() bool { return paths.Exists(filepath.Join(repo, "armed")) || len(exited) > 0 })
	h.run(repo, nil, "mv", ".git/config.lock", ".git/config")
	var err error
	select {
	case err = <-exited:
	case <-time.After(2 * time.Second):
		h.write(filepath.Join(repo, "go"), "")
		err = <-exited
	}
	t.Logf("session: %v\n%s", err, out.String())
	if now, _ := os.ReadFile(config); string(now) != string(written) {
		t.Errorf(".git/config is not what the host wrote:\n%s", now)
	}
	h.run(repo, nil, "git", "status", "--short")
	if paths.Exists(marker) {
		t.Errorf("the host's git status ran what the sandbox planted")
	}
}
