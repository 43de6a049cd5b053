package main

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// reapCmd removes a project's placeholders once none of its sessions runs.
// A launch starts it in the background, detached from the terminal, just
// before exec'ing bwrap: it waits on the instance's session lock, which
// every sandbox of the project holds until its last process is gone.
type reapCmd struct {
	Instance string
	Paths    []string
}

// startReaper runs claudebox --reap in a new session, so that neither the
// terminal's signals nor the sandbox's end stop it.
func startReaper(inst string, placeholders []mount.Mount) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"claudebox", "--reap", inst, "--"}
	for _, m := range placeholders {
		args = append(args, m.Dest)
	}
	cmd := &exec.Cmd{Path: self, Args: args, SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// Run waits until no session holds the instance, then removes each path that
// is still an untouched placeholder. One the user has since written to, or
// replaced, is theirs and stays. A session starting meanwhile waits for this
// to finish, then makes its own.
func (r reapCmd) Run() error {
	lock, err := instance.OpenLock(r.Instance)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := instance.LockIdle(lock); err != nil {
		return err
	}
	for _, p := range r.Paths {
		if mount.IsPlaceholder(p) {
			os.Remove(p)
		}
	}
	return nil
}
