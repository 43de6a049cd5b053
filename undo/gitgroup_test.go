package undo

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGitOwnProcessGroup: the git of a snapshot or of the exit's record
// runs in a process group of its own. In claudebox's, a terminal closed
// as the session ended (SIGHUP, which the supervisor outlives) or a
// Ctrl-C during the exit audit ended it, and with it the record of what
// the session changed: seen killed so were its check-ignore (what git
// ignores, then unknown) and the git config that says whether the user's
// git compares status times.
func TestGitOwnProcessGroup(t *testing.T) {
	dir := t.TempDir()
	st := store{dir: dir, gitDir: filepath.Join(dir, "git")}
	if out, err := exec.Command("git", "init", "-q", "--bare", st.gitDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	var running atomic.Int64
	ctx := context.WithValue(context.Background(), gitStartedKey{}, &running)
	in, held := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := st.git(ctx, dir, os.DevNull, in, "cat-file", "--batch-check")
		done <- err
	}()
	for running.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if group, err := unix.Getpgid(int(running.Load())); err != nil || group == unix.Getpgrp() {
		t.Errorf("the store's git's process group is %d (%v), claudebox's", group, err)
	}
	held.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
