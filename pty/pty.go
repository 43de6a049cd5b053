// Package pty gives a child process a pseudo-terminal of its own, relayed
// to the user's terminal, so that what the child does to its terminal
// (pushes keystrokes, changes its settings or line discipline, leaves it
// non-blocking or in mouse mode, writes the clipboard) stays on its own.
package pty

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Relay is the pseudo-terminal of one child, between Attach and Restore.
type Relay struct {
	// flags are the file status flags (O_NONBLOCK) of the child's standard
	// descriptors as the caller gave them, restored at the end.
	flags map[*os.File]int
	// user is the user's terminal: a descriptor of the caller's, for its
	// settings, and term, a new open file of it that only the relay uses
	// (so its deadlines and O_NONBLOCK touch no descriptor the user's shell
	// shares), or, where the terminal is another user's and cannot be
	// opened anew, a duplicate of user made non-blocking until Restore.
	user  int
	term  *os.File
	saved *unix.Termios
	raw   bool
	// rawMode is the user's terminal as the relay sets it while raw.
	rawMode unix.Termios
	// background: the caller is a background job of the user's terminal
	// (claudebox -p … &), which may write to it but not change its
	// settings: it stays as it is, as it does for claude -p &.
	background bool
	master     *os.File
	slave      *os.File
	out        filter
	outDone    chan struct{}
	// tail is the last tailMax bytes relayed to the user's terminal, for
	// Tail once the child is gone.
	tail   []byte
	inDone chan struct{}
	winch  chan os.Signal
	// suspendTyped is signalled when the user types Ctrl-Z, and closed by
	// Restore, which then waits for followDone; cont receives SIGCONT;
	// restoring closes when Restore begins.
	suspendTyped chan struct{}
	followDone   chan struct{}
	cont         chan os.Signal
	restoring    chan struct{}
}

const (
	// replyMax bounds the wait for the user's terminal to answer the
	// fence, when the child is gone.
	replyMax = time.Second
	// drainMax bounds how long output is still relayed once the child is
	// gone, should something else hold its terminal open.
	drainMax = time.Second
	// followMax bounds how long the child's foreground is looked at after
	// Ctrl-Z: Claude, busy, takes seconds to stop. stopWait bounds how
	// long claudebox waits to be stopped in turn; stopPoll is how often
	// the foreground is looked at.
	followMax = 10 * time.Second
	stopWait  = time.Second
	stopPoll  = 20 * time.Millisecond
)

// suspendKey is Ctrl-Z, which Claude reads as a keystroke and the kernel,
// for a program that lets it, turns into SIGTSTP.
const suspendKey = 0x1a

// fence is a query every terminal answers (a device status report), sent
// after the reset: a terminal answers in order, so once fenceReply has
// arrived, so have the answers to every query the child sent before it.
const fence, fenceReply = "\x1b[5n", "\x1b[0n"

// Attach sets cmd up to run as the leader of a new session. When any of its
// standard descriptors (the *os.File values in cmd.Stdin, Stdout and
// Stderr) is a terminal, the child gets a new pseudo-terminal in their
// place, as its controlling terminal, set up like the user's; pipes and
// files stay as they are. Then, if stdin is a terminal, the user's terminal
// is put in raw mode, so that Ctrl-C and Ctrl-Z are keystrokes the child's
// terminal turns into signals for its foreground process group; not when
// the caller is a background job, which the kernel would stop for it.
//
// clipboard lets the child's clipboard writes (OSC 52) through. The caller
// starts cmd, calls Started, waits for it, then calls Restore, also when
// the start failed.
func Attach(cmd *exec.Cmd, clipboard bool) (*Relay, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	r := &Relay{user: -1, flags: map[*os.File]int{}, out: filter{clipboard: clipboard}}
	var std [3]*os.File
	std[0], _ = cmd.Stdin.(*os.File)
	std[1], _ = cmd.Stdout.(*os.File)
	std[2], _ = cmd.Stderr.(*os.File)
	var isTerm [3]bool
	for i, f := range std {
		if f == nil {
			continue
		}
		control(f, func(fd int) error {
			if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
				r.flags[f] = fl
			}
			if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
				isTerm[i] = true
				if r.user < 0 {
					r.user = fd
				}
			}
			return nil
		})
	}
	if r.user < 0 {
		return r, nil
	}
	if pgrp, err := unix.IoctlGetInt(r.user, unix.TIOCGPGRP); err == nil && pgrp != unix.Getpgrp() {
		r.background = true
	}
	if err := r.open(); err != nil {
		r.Restore()
		return nil, err
	}
	if isTerm[0] {
		cmd.Stdin = r.slave
	}
	if isTerm[1] {
		cmd.Stdout = r.slave
	}
	if isTerm[2] {
		cmd.Stderr = r.slave
	}
	// The child's controlling terminal: the first descriptor given the
	// pseudo-terminal, by its number in the child.
	cmd.SysProcAttr.Setctty = true
	for i, t := range isTerm {
		if t {
			cmd.SysProcAttr.Ctty = i
			break
		}
	}
	if isTerm[0] && !r.background {
		raw := *r.saved
		raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		raw.Oflag &^= unix.OPOST
		raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		raw.Cflag &^= unix.CSIZE | unix.PARENB
		raw.Cflag |= unix.CS8
		raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
		if err := unix.IoctlSetTermios(r.user, unix.TCSETS, &raw); err != nil {
			r.Restore()
			return nil, fmt.Errorf("cannot put the terminal in raw mode: %v", err)
		}
		r.raw, r.rawMode = true, raw
	}
	return r, nil
}

// open allocates the pseudo-terminal and opens the user's terminal anew.
func (r *Relay) open() error {
	var err error
	if r.saved, err = unix.IoctlGetTermios(r.user, unix.TCGETS); err != nil {
		return err
	}
	// A new open file of the user's terminal: pollable, so the relay can
	// stop reading it at a deadline, without making the shell's own
	// descriptor non-blocking. On a terminal another user owns (after su
	// or sudo -u, in another user's tmux) the open is refused: then a
	// duplicate of the caller's descriptor, which shares its file status
	// flags; Restore puts them back.
	if r.term, err = os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", r.user), os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		fd, derr := unix.FcntlInt(uintptr(r.user), unix.F_DUPFD_CLOEXEC, 0)
		if derr == nil {
			if derr = unix.SetNonblock(fd, true); derr != nil {
				unix.Close(fd)
			}
		}
		if derr != nil {
			return fmt.Errorf("cannot open the terminal: %v; nor use it as it is: %v", err, derr)
		}
		r.term = os.NewFile(uintptr(fd), "terminal")
	}
	if r.master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0); err != nil {
		return fmt.Errorf("cannot allocate a pseudo-terminal: %v", err)
	}
	var n uint32
	if err := control(r.master, func(fd int) (err error) {
		if err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN)
		}
		return err
	}); err != nil {
		return fmt.Errorf("cannot set up the pseudo-terminal: %v", err)
	}
	// Opened blocking, as the child expects its terminal.
	name := fmt.Sprintf("/dev/pts/%d", n)
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("cannot open the pseudo-terminal: %v", err)
	}
	r.slave = os.NewFile(uintptr(fd), name)
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, r.saved); err != nil {
		return err
	}
	r.resize()
	return nil
}

// control runs fn on f's descriptor without making it blocking, as Fd
// would.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// resize gives the child's terminal the size of the user's; the kernel
// then signals SIGWINCH to the child's foreground process group.
func (r *Relay) resize() {
	ws, err := unix.IoctlGetWinsize(r.user, unix.TIOCGWINSZ)
	if err != nil {
		return
	}
	control(r.master, func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// Started relays the terminals both ways, as bytes arrive, and the user's
// window size changes, until Restore.
func (r *Relay) Started() {
	if r.master == nil {
		return
	}
	r.slave.Close()
	r.outDone = make(chan struct{})
	go func() {
		defer close(r.outDone)
		buf := make([]byte, 32*1024)
		for {
			n, err := r.master.Read(buf)
			if n > 0 {
				shown := r.out.write(buf[:n])
				r.tail = append(r.tail, shown...)
				r.tail = r.tail[max(0, len(r.tail)-tailMax):]
				if _, werr := r.term.Write(shown); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	if r.raw {
		r.inDone = make(chan struct{})
		r.suspendTyped = make(chan struct{}, 1)
		r.followDone = make(chan struct{})
		r.restoring = make(chan struct{})
		r.cont = make(chan os.Signal, 1)
		signal.Notify(r.cont, unix.SIGCONT)
		go func() {
			defer close(r.followDone)
			for range r.suspendTyped {
				r.followStop()
			}
		}()
		go func() {
			defer close(r.inDone)
			buf := make([]byte, 4096)
			for {
				// What arrives after a Ctrl-Z goes on to the child:
				// the terminal's answers to what it asked as it stopped
				// are its, not the shell's.
				n, err := r.term.Read(buf)
				if n > 0 {
					if _, werr := r.master.Write(buf[:n]); werr != nil {
						return
					}
					if bytes.IndexByte(buf[:n], suspendKey) >= 0 {
						select {
						case r.suspendTyped <- struct{}{}:
						default:
						}
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
	r.winch = make(chan os.Signal, 1)
	signal.Notify(r.winch, unix.SIGWINCH)
	go func() {
		for range r.winch {
			r.resize()
		}
	}()
}

// followStop, after the user typed Ctrl-Z, looks for a moment whether the
// child's foreground process group stops, as Claude's does on Ctrl-Z; if
// it does, claudebox stops too, as the job the user's shell started: the
// shell has the terminal back, and its fg or bg continues claudebox, which
// continues the child.
func (r *Relay) followStop() {
	// A stop is followed once seen twice, a poll apart, in the same
	// group: a shell inside takes its terminal back from a job that
	// stopped (vim in claudebox --shell) at once.
	// A shell inside that took its terminal back (its job stopped, not
	// the child) ends the look at once.
	first, last := 0, 0
	for deadline := time.Now().Add(followMax); time.Now().Before(deadline); {
		pgrp, ok := r.foreground()
		if !ok {
			return
		}
		if first == 0 {
			first = pgrp
		}
		switch {
		case !stopped(pgrp) && pgrp != first:
			return
		case !stopped(pgrp):
			last = 0
		case pgrp == last:
			r.suspend(pgrp)
			return
		default:
			last = pgrp
		}
		select {
		case <-r.restoring:
			return
		case <-time.After(stopPoll):
		}
	}
}

// foreground is the process group in the foreground of the child's
// terminal, which the kernel keeps within the child's session.
func (r *Relay) foreground() (pgrp int, ok bool) {
	err := control(r.master, func(fd int) (err error) {
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgrp, err == nil && pgrp > 0
}

// stopped says whether the process pid is stopped by a signal.
func stopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's name, in parentheses, which may
	// itself hold one.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'T'
}

// suspend gives the user's terminal its settings back, stops claudebox
// (not its process group: the guard watcher in it stays on watch) and, once
// continued, puts the terminal back in raw mode, which stops claudebox
// again while it is in the background (SIGTTOU), as it would any program
// that sets its terminal, and continues the child's process group. Where
// the stop is discarded (claudebox's own group has no parent in its
// session to report it to), the child is continued at once.
func (r *Relay) suspend(pgrp int) {
	for len(r.cont) > 0 {
		<-r.cont
	}
	unix.IoctlSetTermios(r.user, unix.TCSETS, r.saved)
	unix.Kill(unix.Getpid(), unix.SIGTSTP)
	select {
	case <-r.cont:
	case <-time.After(stopWait):
	}
	unix.IoctlSetTermios(r.user, unix.TCSETS, &r.rawMode)
	r.resize()
	// Still the terminal's foreground: the number is not one the group,
	// gone meanwhile, left to a process outside.
	if now, ok := r.foreground(); ok && now == pgrp {
		unix.Kill(-pgrp, unix.SIGCONT)
	}
}

// tailMax is how much of the child's last output Tail keeps: its last
// lines at exit.
const tailMax = 4096

// Tail is the end of what the child wrote to the user's terminal, after
// Restore: its last words at exit. The child chose them.
func (r *Relay) Tail() []byte {
	if r == nil {
		return nil
	}
	return r.tail
}

// Restore, once the child is gone, relays what it still wrote, resets
// every terminal mode it could have left on, discards the replies to its
// queries that are still arriving, and puts back the user's terminal
// settings and the descriptors' flags.
func (r *Relay) Restore() {
	if r.winch != nil {
		signal.Stop(r.winch)
		close(r.winch)
	}
	if r.inDone != nil {
		close(r.restoring)
		r.term.SetReadDeadline(time.Now())
		r.master.SetWriteDeadline(time.Now())
		<-r.inDone
		close(r.suspendTyped)
		<-r.followDone
		signal.Stop(r.cont)
	}
	if r.outDone != nil {
		r.master.SetReadDeadline(time.Now().Add(drainMax))
		r.term.SetWriteDeadline(time.Now().Add(drainMax))
		<-r.outDone
	} else if r.slave != nil {
		r.slave.Close()
	}
	if r.term != nil {
		r.term.SetWriteDeadline(time.Now().Add(drainMax))
		r.term.Write(r.out.reset())
		if r.raw {
			r.discardReplies()
		}
		if !r.background {
			unix.IoctlSetInt(r.user, unix.TCFLSH, unix.TCIFLUSH)
		}
		r.term.Close()
	}
	if r.saved != nil && !r.background {
		unix.IoctlSetTermios(r.user, unix.TCSETS, r.saved)
	}
	if r.master != nil {
		r.master.Close()
	}
	for f, fl := range r.flags {
		control(f, func(fd int) error {
			_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
			return err
		})
	}
}

// discardReplies reads the user's terminal until it has answered the
// fence: the replies to the child's last queries must not reach the shell.
// It needs the terminal raw, as the child had it, to read replies that end
// no line.
func (r *Relay) discardReplies() {
	if _, err := r.term.Write([]byte(fence)); err != nil {
		return
	}
	r.term.SetReadDeadline(time.Now().Add(replyMax))
	var seen []byte
	buf := make([]byte, 4096)
	for {
		n, err := r.term.Read(buf)
		if err != nil {
			return
		}
		seen = append(seen, buf[:n]...)
		if bytes.Contains(seen, []byte(fenceReply)) {
			return
		}
		// Only what may be the start of the reply is kept.
		seen = append(seen[:0], seen[max(0, len(seen)-len(fenceReply)+1):]...)
	}
}

// IsTerminal says whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return control(f, func(fd int) error {
		_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	}) == nil
}
