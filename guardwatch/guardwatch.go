// Package guardwatch keeps a session's guards standing while the host
// changes the files they protect.
//
// A guard is a read-only mount on a dentry inside the read-write project.
// When the host replaces a guarded file by rename (git config, an editor's
// save), the kernel detaches every other namespace's mount from the old
// dentry, and the new file would be writable from inside. So claudebox
// keeps a watcher beside each sandbox: a process of its own (claudebox
// --watch-guards, Run), outside the sandbox's pid namespace, that owns the
// user namespace bwrap joins and so may mount in the sandbox's mount
// namespace. It watches the directories holding the guards and binds the
// new file read-only over its path the moment the path is replaced.
//
// The new file itself is what the host wrote where the sandbox could reach
// it (.git/config.lock, an editor's temporary file, or the path in the
// moment before the guard stands again): a sandbox process may hold it
// open, mapped, in a thread's own descriptor table, in flight over a Unix
// socket or registered with io_uring, none of which a look through /proc
// sees in full. So the watcher asks the kernel instead: it takes a read
// lease on the new file (fcntl F_SETLEASE, F_RDLCK), which the kernel
// grants only while no one, anywhere, holds the file open for writing
// (every route above keeps a writable open file: a writable shared mapping
// needs one, mprotect included), and which it breaks, with SIGIO to the
// watcher, the moment anyone opens the file for writing or truncates it,
// holding that open back until the lease is released (or the kernel's
// lease-break-time, 45 s by default, runs out). The watcher keeps
// the lease for the rest of the session. When the lease cannot be taken or
// breaks, or a look through /proc finds any descriptor or shared mapping of
// the file outside its guard, or a /proc entry it cannot read, the watcher
// ends the session: it kills the sandbox's first process and waits until
// its pid namespace is empty, and only then exits, releasing the leases.
// So an open held back by a lease never completes in a live sandbox, and
// once the host's path is guarded and leased, no sandbox process writes the
// file the host obeys. A directory has no lease: when the host replaces a
// guarded directory, the watcher guards it again and ends the session, as
// a directory descriptor passed over a socket would reach inside it unseen.
//
// A repository's own git configuration, where users keep credentials (a
// remote's token), stands again otherwise: not as the host's new file but
// as a private read-only copy of what git needs made from it
// (gitconfig.RepositoryCopy), written in a tmpfs of the watcher's own
// mount namespace and bound from there (restoreCopy). The host's file is
// then seen by no mount inside, and is held and looked for all the same:
// the sandbox may have opened it in the moment before the copy stood.
//
// What stays open is the race the host itself opens: a sandbox process may
// write the host's new file before its rename, or in the microseconds
// before the guard stands again, and let go of it before the watcher
// looks. For git's configuration, the session's end shows what a changed
// file now sets that runs a command beside its old value (SayChanges).
//
// The protocol: the supervisor starts the watcher (Start), lets bwrap join
// its user namespace, and writes the sandbox's first pid and the guarded
// paths to the watcher's stdin as one JSON line; the watcher answers
// "ready" once the guards stand, then says nothing unless it ends the
// session, when its last line is why. Stop ends it after the sandbox.
package guardwatch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
)

// Flag, claudebox's only argument, makes it the watcher's process (Run).
const Flag = "--watch-guards"

// Watcher is the supervisor's side of a session's guard watcher.
type Watcher struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	userns *os.File
	// before is what the guarded files held at the start.
	before snapshot
	// reason is why the watcher ended the session, set before done closes;
	// done closes once nothing will use the sandbox's pidfd any more.
	reason atomic.Value
	done   chan struct{}
	// exited closes once the watcher's process has closed its output,
	// which it does once Run has returned (so no process of the sandbox is
	// left) and it has said why, if it ended the session.
	exited chan struct{}
	// reaped closes once its process is gone.
	reaped   chan struct{}
	stopping atomic.Bool
	// released: the guards stood and the sandbox went on to its command.
	released bool
}

// request is what the supervisor tells the watcher once bwrap has made
// the sandbox.
type request struct {
	Pid    int      `json:"pid"`
	Guards []string `json:"guards"`
	// Roots are the directories bound from the host at their own path: the
	// sandbox's mount of one stays where it is when the host moves it, and
	// the sandbox cannot write where it was.
	Roots []string `json:"roots"`
	// StandIns are the guarded paths that did not exist on the host, where
	// the launch made a placeholder (by the kind of mount it stands under),
	// recorded for the instance Instance.
	StandIns map[string]string `json:"standins"`
	// Saved are the files Claude Code saves into a stand-in directory
	// (private empty copies inside), by the directory.
	Saved    map[string][]string `json:"saved"`
	Instance string              `json:"instance"`
	// GitConfigs are the guarded paths of a repository's own git
	// configuration, where a new file of the host's stands again as a
	// private copy of what git needs (restoreCopy).
	GitConfigs []string `json:"gitconfigs"`
}

// StandIns describes the placeholders of a session: the kind of mount
// (mount.Kind) each guarded path stands under, and the instance whose
// record names them.
type StandIns struct {
	Kinds    map[string]string
	Saved    map[string][]string
	Instance string
}

// Launch starts the watcher's process, which waits for Attach: started
// first, its runtime starts while the supervisor prepares the session.
// A watcher that is never attached is ended with Abandon.
func Launch() (*Watcher, error) { return startProcess() }

// Attach starts cmd, bwrap with the plan's descriptors in ExtraFiles, in
// the watcher's user namespace, and returns once the guards are watched
// and the sandbox may run its command. Just before it does, ready (if not
// nil) gets the sandbox's first process, whose mounts then stand as bwrap
// made them. gitConfigs are the guards that are a repository's own git
// configuration, which stand again as private copies. If bwrap made no sandbox, the watcher is stopped and cmd's
// Wait says why. On an error, the watcher is abandoned.
func (w *Watcher) Attach(cmd *exec.Cmd, start func(*exec.Cmd) error, guards, gitConfigs, roots []string, standIns StandIns, ready func(pid int)) error {
	w.before = takeSnapshot(guards)
	infoR, infoW, err := os.Pipe()
	if err != nil {
		w.Abandon()
		return err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		w.Abandon()
		return err
	}
	defer blockW.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, w.userns, infoW, blockR)
	err = start(cmd)
	for _, f := range []*os.File{w.userns, infoW, blockR} {
		f.Close()
	}
	if err != nil {
		w.Abandon()
		return err
	}
	// bwrap names the sandbox's first process once it exists; if it says
	// nothing, it failed before making one, and its status says why.
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if json.NewDecoder(infoR).Decode(&info) != nil || info.ChildPid <= 0 {
		w.Abandon()
		return nil
	}
	sandbox, err := unix.PidfdOpen(info.ChildPid, 0)
	if err != nil {
		w.Abandon()
		// A first process already gone (bwrap failed to make the
		// sandbox, and reaped it) took its namespace with it: bwrap
		// exits with its own status, which says why. Any other process
		// would run unwatched.
		if err != unix.ESRCH {
			cmd.Process.Kill()
		}
		return nil
	}
	req, _ := json.Marshal(request{Pid: info.ChildPid, Guards: guards, Roots: roots, StandIns: standIns.Kinds, Saved: standIns.Saved, Instance: standIns.Instance, GitConfigs: gitConfigs})
	w.in.Write(append(req, '\n'))
	if line, _ := w.out.ReadString('\n'); line != "ready\n" {
		// bwrap is left to exit with its own status: 1 when it failed to
		// make the sandbox, 128+9 for the sandbox the watcher killed.
		w.end(nil, sandbox, line)
		go w.drain()
		return nil
	}
	if ready != nil {
		ready(info.ChildPid)
	}
	blockW.Write([]byte{0})
	w.released = true
	go func() {
		line, _ := w.out.ReadString('\n')
		w.end(cmd, sandbox, line)
		w.drain()
	}()
	return nil
}

// startProcess starts the watcher in a user namespace of its own, where it
// keeps the capabilities to mount in the sandbox's mount namespace and to
// set that namespace's limits (shareLimits), and opens that namespace for
// bwrap to join. Its Go runtime runs on one processor: it only waits and
// reacts, and with one per processor its start cost a third more
// processor time (idle processors woken and parked again), taken from
// bwrap's mounts beside it. It is in a process group of its own: a
// terminal's Ctrl-C (SIGINT to the group in its foreground, claudebox -p's)
// is meant for the session, which claudebox forwards it to, and the
// watcher it stopped ended the session as one that had failed.
func startProcess() (*Watcher, error) {
	w := &Watcher{done: make(chan struct{}), exited: make(chan struct{}), reaped: make(chan struct{})}
	w.cmd = &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{"claudebox", Flag},
		Env:  []string{"GOMAXPROCS=1"},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags:                 unix.CLONE_NEWUSER,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
			GidMappingsEnableSetgroups: false,
			AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SYS_CHROOT, unix.CAP_SYS_PTRACE, unix.CAP_SYS_RESOURCE},
			Pdeathsig:                  unix.SIGKILL,
			Setpgid:                    true,
		},
	}
	var err error
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.cmd.Stderr = w.cmd.Stdout
	w.out = bufio.NewReader(out)
	if err := w.cmd.Start(); err != nil {
		return nil, hint.Errorf("run claudebox --check", "cannot start the guard watcher in a user namespace: %v", err)
	}
	if w.userns, err = os.Open(fmt.Sprintf("/proc/%d/ns/user", w.cmd.Process.Pid)); err != nil {
		w.Abandon()
		return nil, err
	}
	return w, nil
}

// end records why the watcher stopped, unless the session was ending
// anyway, and ends the sandbox, and bwrap unless cmd is nil; then it lets
// go of the sandbox's pidfd.
func (w *Watcher) end(cmd *exec.Cmd, sandbox int, line string) {
	defer close(w.done)
	defer unix.Close(sandbox)
	reason := strings.TrimPrefix(strings.TrimSpace(line), "claudebox: ")
	if reason == "" && w.stopping.Load() {
		return
	}
	if reason == "" {
		reason = "the guard watcher stopped"
	}
	w.reason.Store(reason)
	unix.PidfdSendSignal(sandbox, unix.SIGKILL, nil, 0)
	if cmd != nil {
		cmd.Process.Kill()
	}
}

// drain reads what the watcher says after its last line, until its
// process lets go of its output.
func (w *Watcher) drain() {
	io.Copy(io.Discard, w.out)
	close(w.exited)
}

// Abandon ends a watcher that never watched a sandbox.
func (w *Watcher) Abandon() {
	w.stopping.Store(true)
	w.cmd.Process.Kill()
	w.cmd.Wait()
	close(w.done)
	close(w.exited)
	close(w.reaped)
}

// Wait waits, after Stop, until the watcher's process is gone. Its exit,
// the last hold on the sandbox's mount namespace, unmounts the sandbox's
// mounts (10-20 ms on a loaded machine); a placeholder removed before
// that is still a mount point there, and its removal waits longer.
func (w *Watcher) Wait() {
	if w != nil {
		<-w.reaped
	}
}

// Released says whether the sandbox went on to run its command: if not,
// and bwrap exited on its own, bwrap failed to make the sandbox.
func (w *Watcher) Released() bool { return w != nil && w.released }

// Stop ends the watcher after the sandbox has ended, and returns why it
// ended the session, if it did. Closing its stdin tells the watcher the
// session is over: it makes sure no process of the sandbox is left before
// it exits and lets go of the files it holds back.
func (w *Watcher) Stop() error {
	if w == nil {
		return nil
	}
	if w.stopping.CompareAndSwap(false, true) {
		w.in.Close()
		<-w.done
		<-w.exited
		go func() {
			w.cmd.Wait()
			close(w.reaped)
		}()
	}
	if r, ok := w.reason.Load().(string); ok {
		return hint.Errorf("start claudebox again", "session ended: %s", r)
	}
	return nil
}
