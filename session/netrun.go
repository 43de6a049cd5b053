package session

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/inside"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/probe"
	"github.com/claudebox/claudebox/relay"
)

// A session with a proxy keeps its host-side files in ~/.claudebox/run,
// which only the user can enter, named <project hash>.<supervisor pid>,
// with -N for the process's later sessions (parallel eval runs):
//
//   - .sock, the proxy's socket: the filtered network's way out, the one
//     file of these bound into the sandbox;
//   - .log, its decisions, one JSON line each, locked by the supervisor
//     for as long as the session runs (.new while it is being made);
//   - .ctl, its control socket, through which the user widens the allow
//     list from another terminal (claudebox --allow-host HOST --live);
//   - .agent, with --with-ssh, the filter of the user's SSH agent, bound
//     into the sandbox (with or without a proxy);
//   - .gpg, with --with-gpg, the filter of the user's gpg-agent, bound
//     into the sandbox;
//   - .claude, a directory: the private copies of ~/.claude's directories
//     of files, bound read-only into the sandbox; in claudebox's
//     directory of $XDG_RUNTIME_DIR instead when that is the user's alone
//     (see dirCopiesAt).
//
// The sandbox sees none but .sock, .agent, .gpg and .claude. A session removes its
// sockets when it ends and leaves its log for a later look; the next
// launch or --gc removes what ended sessions left.
const (
	sockExt = ".sock"
	logExt  = ".log"
	// newLogExt is a log's name while its lock is being taken.
	newLogExt = ".new"
	ctlExt    = ".ctl"
	agentExt  = ".agent"
	gpgExt    = ".gpg"
)

// runDir is where sessions keep their run files.
func runDir(stateDir string) string { return filepath.Join(stateDir, "run") }

// runSessions counts the sessions this process has named run files for.
var runSessions atomic.Int64

// newRunStem names a new session's run files, but for the extension: one
// stem a session, computed once (see Session.runFiles).
func newRunStem(stateDir, root string) string {
	stem := instance.Hash(root) + "." + strconv.Itoa(os.Getpid())
	if n := runSessions.Add(1) - 1; n > 0 {
		stem += "-" + strconv.FormatInt(n, 10)
	}
	return filepath.Join(runDir(stateDir), stem)
}

// stemPID is the supervisor's pid in a stem's last part (<pid>[-<n>]).
func stemPID(last string) string {
	pid, _, _ := strings.Cut(last, "-")
	return pid
}

// makeRunDir creates the run directory, or takes it back to the user
// alone.
func makeRunDir(stateDir string) error { return makePrivateDir(runDir(stateDir)) }

// makePrivateDir creates dir, or takes it back to the user alone; it
// refuses a link or another user's directory there (one made in /dev/shm
// since the probe looked: probe.RuntimeDir), which would not be private.
func makePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: fs.ErrExist}
	}
	return os.Chmod(dir, 0o700)
}

// openDecisionLog creates the session's decision log and holds its lock
// until the session ends (the descriptor closes with claudebox): a log
// whose lock is free belongs to a session that has ended. The log appears
// locked: made and locked under another name, then renamed, so that no
// sweep of sessions starting beside it sees it unlocked, and a sweep's
// look at its lock (a shared one, for an instant) cannot make the lock
// fail.
func openDecisionLog(stem string) (*os.File, error) {
	tmp := stem + newLogExt
	os.Remove(tmp)
	fd, err := unix.Open(tmp, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: tmp, Err: err}
	}
	if err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err == nil {
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, stem+logExt, unix.RENAME_NOREPLACE)
	}
	if err != nil {
		unix.Close(fd)
		os.Remove(tmp)
		return nil, &fs.PathError{Op: "create", Path: stem + logExt, Err: err}
	}
	return os.NewFile(uintptr(fd), stem+logExt), nil
}

// sessionLive says the session of log still runs: its supervisor holds the
// log's lock.
func sessionLive(log string) bool {
	f, err := os.OpenFile(log, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB), unix.EWOULDBLOCK)
}

// SweepRun removes what ended sessions left in the run directory: the
// files of each session whose log nobody holds, and files of no session.
// A running session's files stay. It returns the files removed.
func SweepRun(stateDir string) []string {
	removed := sweepCopies(probe.CopiesDirs(os.Getenv))
	dir := runDir(stateDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return removed
	}
	ended := map[string]bool{}
	for _, e := range entries {
		if stem, ok := strings.CutSuffix(e.Name(), logExt); ok {
			ended[stem] = !sessionLive(filepath.Join(dir, e.Name()))
		}
	}
	for _, e := range entries {
		name := e.Name()
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		gone, hasLog := ended[stem]
		if hasLog && !gone || !hasLog && pidRuns(stem) {
			continue
		}
		remove := os.Remove
		if e.IsDir() && filepath.Ext(name) == dirCopiesExt {
			// A session's private copies of ~/.claude's directories.
			remove = os.RemoveAll
		}
		if remove(filepath.Join(dir, name)) == nil {
			removed = append(removed, filepath.Join(dir, name))
		}
	}
	return removed
}

// sweepCopies removes the private copies sessions left in dirs (the
// user's runtime directory, the one in /dev/shm: see dirCopiesAt) whose
// supervisor is gone. They have no log there: the supervisor's pid in
// their name says.
func sweepCopies(dirs []string) []string {
	var removed []string
	for _, dir := range dirs {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			stem, ok := strings.CutSuffix(e.Name(), dirCopiesExt)
			if !ok || pidRuns(stem) {
				continue
			}
			if os.RemoveAll(filepath.Join(dir, e.Name())) == nil {
				removed = append(removed, filepath.Join(dir, e.Name()))
			}
		}
	}
	return removed
}

// pidRuns says the supervisor named by stem (<hash>.<pid>[-N]) runs; a
// name that is not a session's is no running one.
func pidRuns(stem string) bool {
	_, last, ok := strings.Cut(stem, ".")
	n, err := strconv.Atoi(stemPID(last))
	if !ok || err != nil || n <= 0 {
		return false
	}
	return unix.Kill(n, 0) != unix.ESRCH
}

// LiveSession is a running session of a project: its run files' stem.
type LiveSession string

// Log is the session's decision log; Control, its control socket.
func (s LiveSession) Log() string     { return string(s) + logExt }
func (s LiveSession) Control() string { return string(s) + ctlExt }

// LiveSessions lists the running sessions of the project at root that
// have a decision log.
func LiveSessions(stateDir, root string) []LiveSession {
	logs, _ := filepath.Glob(filepath.Join(runDir(stateDir), instance.Hash(root)+".*"+logExt))
	var live []LiveSession
	for _, l := range logs {
		if sessionLive(l) {
			live = append(live, LiveSession(strings.TrimSuffix(l, logExt)))
		}
	}
	return live
}

// listenControl listens on path for the user's commands; a process of
// another user is turned away (the directory already keeps it out).
func listenControl(path string) (net.Listener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return &ownerListener{ln.(*net.UnixListener)}, nil
}

// ownerListener accepts only connections from this process's own user.
type ownerListener struct{ *net.UnixListener }

func (l *ownerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if sameUser(c) {
			return c, nil
		}
		c.Close()
	}
}

func sameUser(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	return err == nil && cred != nil && int(cred.Uid) == os.Getuid()
}

// Running says the session still runs.
func (s LiveSession) Running() bool { return sessionLive(s.Log()) }

// PID is the session's supervisor's.
func (s LiveSession) PID() string {
	return stemPID(filepath.Ext(string(s))[1:])
}

// relayHandoff is the sandbox's end of the socket on which the relay
// hands its listeners out (mount.Plan.RelayHandoff): the proxy serves
// what it sends, once, while the supervisor's end is read beside the
// launch.
func (s *Session) relayHandoff() (*os.File, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours := os.NewFile(uintptr(pair[0]), "relay-handoff")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		unix.Close(pair[1])
		return nil, err
	}
	p, forward := s.proxy, s.plan.Relay.Forward
	go func() {
		defer c.Close()
		listeners, ok, err := relay.Receive(c.(*net.UnixConn), inside.Ports{Forward: forward})
		if err != nil {
			fmt.Fprintf(os.Stderr, "claudebox: the network relay's listeners were refused: %v\n", err)
		}
		if !ok {
			return
		}
		p.Serve(listeners[0])
		for i, n := range forward {
			p.ServeForward(listeners[i+1], net.JoinHostPort("127.0.0.1", strconv.Itoa(n)))
		}
	}()
	return os.NewFile(uintptr(pair[1]), "relay-handoff"), nil
}
