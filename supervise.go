package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
)

// supervise runs the session: bwrap as claudebox's child, with claudebox
// staying outside the sandbox for as long as it runs. claudebox holds the
// session lock itself, on a descriptor no process of the sandbox inherits,
// forwards the signals meant for the session, and when the project's last
// session ends, removes the placeholders. It exits with the sandbox's
// status. (Exec'ing bwrap, as claudebox once did, left the lock on a
// descriptor the sandbox shared, and nothing on the host side watching.)
func (s session) supervise() error {
	lock, files, err := s.start()
	if err != nil {
		return err
	}
	defer lock.Close()
	cmd := &exec.Cmd{
		Path:       s.bwrap,
		Args:       append([]string{"bwrap"}, s.plan.Args()...),
		Env:        s.plan.Environ(s.lookupEnv),
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		ExtraFiles: files,
	}
	// A signal sent to claudebox alone (kill, a closing terminal) is
	// meant for the session. One the terminal sends its foreground group
	// reaches the sandbox too, and bwrap ends either way.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	defer signal.Stop(sigs)
	watcher, err := startPlan(cmd, s.plan)
	closeAll(files)
	if err != nil {
		s.leave(lock)
		return err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	ended := watcher.stop()
	s.leave(lock)
	if ended != nil {
		return ended
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exitCode(statusOf(exit.ProcessState))
	case err != nil:
		return err
	}
	return nil
}

// leave ends this session's hold on the project; if it was the last one
// running, it cleans up what the sessions left on the host.
func (s session) leave(lock *os.File) {
	if instance.Leave(lock) {
		instance.RemovePlaceholders(s.plan.Instance)
	}
}

// statusOf is the exit status a shell would report for the process.
func statusOf(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// exitCode ends claudebox with the sandbox's status, saying nothing: what
// ran inside has said what it had to.
type exitCode int

func (e exitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// closeInheritedOnExec marks every descriptor beyond stdio close-on-exec:
// the shell that started claudebox may have left some open (exec
// 7<~/.ssh/id_ed25519), and no child of claudebox is to inherit them.
func closeInheritedOnExec() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
