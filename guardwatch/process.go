package guardwatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/paths"
	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/idle"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// Run is the watcher's process (claudebox --watch-guards): it reads the
// sandbox's pid and the guarded paths, then keeps the guards standing
// until its stdin closes. It says "ready" once the guards stand. Any error
// ends the session: Run returns it only once no process of the sandbox is
// left.
func Run(stdin io.Reader, stdout io.Writer) error {
	if err := shareLimits("/proc/sys"); err != nil {
		return err
	}
	var req request
	dec := json.NewDecoder(stdin)
	if err := dec.Decode(&req); err != nil {
		return err
	}
	sandbox, err := openSandbox(req.Pid)
	if err != nil {
		return err
	}
	// SIGIO says a lease broke: someone opens a leased file for writing.
	broken := make(chan os.Signal, 1)
	signal.Notify(broken, unix.SIGIO)
	over := make(chan struct{})
	go func() {
		io.Copy(io.Discard, io.MultiReader(dec.Buffered(), stdin))
		close(over)
	}()
	w := &watch{req: req, leases: map[string]int{}}
	err = w.run(stdout, broken, over)
	// The sandbox goes first, while the leases still hold back any open
	// for writing it has begun.
	unix.PidfdSendSignal(sandbox, unix.SIGKILL, nil, 0)
	for {
		fds := []unix.PollFd{{Fd: int32(sandbox), Events: unix.POLLIN}}
		if n, perr := unix.Poll(fds, -1); n > 0 || (perr != nil && perr != unix.EINTR) {
			break
		}
	}
	return err
}

// sharedLimits are the kernel's counts per user that all of the user's
// programs share (fs.inotify.max_user_instances is 128 by default, and
// every launch's watcher needs one), by their names in the user
// namespace's /proc/sys/user and in the host's /proc/sys/fs.
var sharedLimits = []struct{ user, host string }{
	{"max_inotify_instances", "fs/inotify/max_user_instances"},
	{"max_inotify_watches", "fs/inotify/max_user_watches"},
	{"max_fanotify_groups", "fs/fanotify/max_user_groups"},
	{"max_fanotify_marks", "fs/fanotify/max_user_marks"},
}

// limitShare is the part of each shared limit one sandbox may take.
const limitShare = 4

// shareLimits bounds the sandbox, which runs in this process's user
// namespace, to a quarter of each count the user's programs share: the
// kernel counts a namespace's use at every level above it, so what the
// sandbox takes of its own namespace's limit leaves the rest to the user's
// other programs and to three more sandboxes. The user namespace's owner
// (this process, with CAP_SYS_RESOURCE in it) may set them; the sandbox,
// which bwrap leaves no capability, may not.
func shareLimits(sys string) error {
	for _, l := range sharedLimits {
		b, err := os.ReadFile(sys + "/" + l.host)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		n, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || perr != nil || n <= 0 {
			return fmt.Errorf("cannot read the user's limit %s: %v", l.host, errors.Join(err, perr))
		}
		err = os.WriteFile(sys+"/user/"+l.user, []byte(strconv.Itoa(max(n/limitShare, 1))), 0)
		if errors.Is(err, fs.ErrNotExist) {
			// A kernel without the namespace's own count of it.
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot bound the sandbox's share of %s: %v", l.host, err)
		}
	}
	return nil
}

// openSandbox returns a pidfd of the sandbox's first process, pid, which
// must be in the watcher's user namespace. Once it has exited, its pid
// namespace holds no process.
func openSandbox(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1, err
	}
	// Checked after the pidfd is open, so pid names the same process.
	if !sameFile("/proc/self/ns/user", "/proc/"+strconv.Itoa(pid)+"/ns/user") || unix.PidfdSendSignal(fd, 0, nil, 0) != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("process %d is not the sandbox", pid)
	}
	return fd, nil
}

// watch is the watcher's state: the request and the leases it holds, by
// path.
type watch struct {
	req    request
	sb     *sandboxView
	leases map[string]int
	// copies makes the copies of git configuration, once one is needed.
	copies *copyMaker
}

// run watches until the session is over (nil) or something ends it.
func (w *watch) run(stdout io.Writer, broken <-chan os.Signal, over <-chan struct{}) error {
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		// EMFILE: the kernel's per-user count, which the sandboxes share.
		return fmt.Errorf("cannot watch the guards: %v (fs.inotify.max_user_instances: your processes, a sandbox's among them, hold them all)", err)
	}
	dirs := map[int]string{}
	// The watches go one by one before the process exits: closing an
	// inotify instance that still holds watches waits for the kernel's
	// grace period for them (measured 1.5-20 ms), and the supervisor
	// waits for this process's exit to remove the placeholders.
	defer func() {
		for wd := range dirs {
			unix.InotifyRmWatch(ino, uint32(wd))
		}
	}()
	guarded := map[string]bool{}
	for _, g := range w.req.Guards {
		guarded[g] = true
		wd, err := unix.InotifyAddWatch(ino, filepath.Dir(g), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_DELETE|unix.IN_MOVED_FROM|
			unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
		if err != nil {
			return fmt.Errorf("cannot watch %s: %v", filepath.Dir(g), err)
		}
		dirs[wd] = filepath.Dir(g)
	}
	// A sandbox with no guards (an eval run's) needs no view of it.
	if len(w.req.Guards) > 0 {
		if w.sb, err = enterSandbox(w.req.Pid, filepath.Dir(w.req.Guards[0])); err != nil {
			return err
		}
	}
	// The host may have replaced a guard before bwrap's mount stood.
	if err := w.keepAll(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "ready")
	// From here it waits, for the whole session: what its start used is
	// given back once the session has run a moment.
	idle.Wait(nil)
	events := make(chan []byte)
	failed := make(chan error, 1)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := unix.Read(ino, buf)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				failed <- err
				return
			}
			events <- buf[:n]
		}
	}()
	for {
		var buf []byte
		select {
		case <-over:
			return nil
		case <-broken:
			return w.leaseBroken()
		case err := <-failed:
			return err
		case buf = <-events:
		}
		for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				if err := w.keepAll(); err != nil {
					return err
				}
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 && slices.Contains(w.req.Roots, dirs[int(ev.Wd)]):
			case ev.Mask&unix.IN_DELETE_SELF != 0 && w.gone(dirs[int(ev.Wd)]):
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
				return fmt.Errorf("%s, which holds guarded paths, was moved or removed on the host", strconv.Quote(dirs[int(ev.Wd)]))
			case guarded[filepath.Join(dirs[int(ev.Wd)], name)]:
				if err := w.keep(filepath.Join(dirs[int(ev.Wd)], name)); err != nil {
					return err
				}
			}
		}
	}
}

func (w *watch) keepAll() error {
	if len(w.req.Guards) == 0 {
		return nil
	}
	// One visit to the sandbox's view finds the guards that stand, as
	// nearly all do: each visit wakes its thread.
	var fallen []string
	w.sb.inside(func() error {
		for _, g := range w.req.Guards {
			if !standing(g) {
				fallen = append(fallen, g)
			}
		}
		return nil
	})
	for _, g := range fallen {
		if err := w.keep(g); err != nil {
			return err
		}
	}
	return nil
}

// standing says whether the guard at path stands, as restore finds it
// when it has nothing to do.
func standing(path string) bool {
	var st unix.Statx_t
	return unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK, &st) == nil &&
		st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && stands(st)
}

// stands says the path st describes is a mount, that of a directory or of
// a file with no other name (one it has is a way to write it past the
// guard).
func stands(st unix.Statx_t) bool {
	return st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 && (st.Mode&unix.S_IFMT == unix.S_IFDIR || st.Nlink <= 1)
}

// leaseBroken names the file someone opened for writing.
func (w *watch) leaseBroken() error {
	for path, fd := range w.leases {
		if t, err := unix.FcntlInt(uintptr(fd), unix.F_GETLEASE, 0); err != nil || t != unix.F_RDLCK {
			return fmt.Errorf("something opened %s for writing past its guard", strconv.Quote(path))
		}
	}
	return errors.New("something opened a guarded file for writing past its guard")
}

// sandboxView is one thread of the watcher that sees the sandbox's mounts:
// its own filesystem context, in the sandbox's mount namespace, rooted at
// the sandbox's root.
type sandboxView struct {
	do chan func()
}

// enterSandbox starts the thread that sees the sandbox of pid, once bwrap
// has moved it to its new root, where dir is.
func enterSandbox(pid int, dir string) (*sandboxView, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	mnt, err := os.Open(proc + "/ns/mnt")
	if err != nil {
		return nil, err
	}
	defer mnt.Close()
	// bwrap pivots to a root of its own, then changes into the sandbox's
	// root below it; then it waits for us.
	for deadline := time.Now().Add(10 * time.Second); sameFile("/", proc+"/root") || !paths.Exists(proc+"/root"+dir); time.Sleep(time.Millisecond) {
		// bwrap's own message says why its sandbox ended before it began.
		if time.Now().After(deadline) || !paths.Exists(proc) {
			return nil, errors.New("the sandbox did not start")
		}
	}
	root, err := os.Open(proc + "/root")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	v := &sandboxView{do: make(chan func())}
	entered := make(chan error)
	go func() {
		// The thread never unlocks: Go ends it with the goroutine, so no
		// other goroutine ever runs in the sandbox's namespace.
		runtime.LockOSThread()
		err := unix.Unshare(unix.CLONE_FS)
		if err == nil {
			err = unix.Setns(int(mnt.Fd()), unix.CLONE_NEWNS)
		}
		if err == nil {
			err = unix.Fchdir(int(root.Fd()))
		}
		if err == nil {
			err = unix.Chroot(".")
		}
		entered <- err
		if err != nil {
			return
		}
		for f := range v.do {
			f()
		}
	}()
	if err := <-entered; err != nil {
		return nil, fmt.Errorf("cannot enter the sandbox's mount namespace: %v", err)
	}
	return v, nil
}

// inside runs f on the thread that sees the sandbox.
func (v *sandboxView) inside(f func() error) error {
	done := make(chan error)
	v.do <- func() { done <- f() }
	return <-done
}

// keep makes sure the guard at path stands in the sandbox: if the path is
// no longer a mount (the host replaced it), it binds what is there now
// read-only over it, without following a symlink (for a repository's git
// configuration, a copy of what git needs made from it); then it makes sure
// nothing in the sandbox got hold of the new file (see the package doc).
// A stand-in the host removed (git clean -fd, git stash -u) is made again
// and stands again inside; where something else was made in its place,
// by anyone, that is guarded instead, and the session goes on unless the
// sandbox holds it (its own doing): what is in it is the exit audit's.
func (w *watch) keep(path string) error {
	var placed *unix.Statx_t
	var remade *unix.Stat_t
	_, wasStandIn := w.req.StandIns[path]
	gitConfig := slices.Contains(w.req.GitConfigs, path)
	// The host (or another project's sandbox) may remove the stand-in
	// again while it is being made again; a few rounds settle an honest
	// race, and one that goes on past them ends the session.
	remakes := 0
	for range 100 {
		var guard *unix.Statx_t
		var err error
		if gitConfig && remade == nil {
			guard, err = w.restoreCopy(path)
		} else {
			err = w.sb.inside(func() (err error) {
				guard, err = restore(path)
				return err
			})
		}
		if err == errRemoved && w.gone(filepath.Dir(path)) {
			return nil
		}
		if err == errRemoved && remakes < 5 {
			remakes++
			if remade, err = w.standAgain(path); err != nil {
				return err
			}
			if remade != nil && remade.Mode&unix.S_IFMT == unix.S_IFDIR {
				if err := w.standDirAgain(path, *remade); err != errAgain {
					return err
				}
				remade = nil
			}
			continue
		}
		if err == errRemoved {
			return fmt.Errorf("%s was removed on the host, and the sandbox could create it in its place", strconv.Quote(path))
		}
		if err == errAgain {
			continue
		}
		if err != nil {
			return err
		}
		if guard == nil && placed == nil {
			return nil
		}
		if guard != nil {
			placed = guard
		}
		// What the new mount stands on must be what the host's path names.
		// If the host has replaced the file again, that mount is gone too
		// and the next round guards the newer file; if the guard still
		// stands on something else, the sandbox swapped the path just
		// before the mount went on it.
		var host unix.Stat_t
		if unix.Lstat(path, &host) != nil || host.Ino != placed.Ino || host.Dev != unix.Mkdev(placed.Dev_major, placed.Dev_minor) {
			if guard == nil {
				break
			}
			continue
		}
		if remade != nil && host.Ino == remade.Ino && host.Dev == remade.Dev {
			// Ours: still as made, and held against writers as any
			// guarded file is.
			if !emptyStandIn(path, host) {
				return fmt.Errorf("%s, made again on the host, was written before its guard stood", strconv.Quote(path))
			}
			// A socket opens for no one.
			if host.Mode&unix.S_IFMT != unix.S_IFREG {
				return nil
			}
			if err := w.hold(path, *placed); err != errAgain {
				return err
			}
			continue
		}
		if placed.Mode&unix.S_IFMT == unix.S_IFDIR {
			if wasStandIn {
				// Made where a stand-in was, by the host, another project's
				// sandbox or this one: read-only inside from now on; a hold
				// of this sandbox's on it is its own doing.
				return w.sb.inside(func() error { return heldElsewhere("/proc", path, *placed) })
			}
			return fmt.Errorf("the host replaced the guarded directory %s; a directory descriptor the sandbox holds, or passed over a socket, would reach inside it unseen", strconv.Quote(path))
		}
		if err := w.hold(path, *placed); err != errAgain {
			return err
		}
	}
	return fmt.Errorf("%s changed while it was being guarded again", strconv.Quote(path))
}

// gone says dir, which holds guarded paths, was removed on the host with
// them, in a guarded directory that still stands inside, where the sandbox
// cannot make it again: the record of a linked worktree in the read-only
// .git/worktrees, which the host's git worktree remove and prune remove
// whole while a session runs. git removes the files first and the
// directory last, so a directory still there is looked at again for a
// moment; one that stays (something was made in it meanwhile) is not
// gone, and its guards are kept as any are.
func (w *watch) gone(dir string) bool {
	holder := filepath.Dir(dir)
	if !slices.Contains(w.req.Guards, holder) {
		return false
	}
	for range goneLooks {
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); errors.Is(err, unix.ENOENT) {
			stands := false
			w.sb.inside(func() error {
				stands = standing(holder)
				return nil
			})
			return stands
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// goneLooks bounds gone's looks, a millisecond apart: git's removal of a
// worktree's record takes a few.
const goneLooks = 500

// standAgain makes again, on the host, the placeholder at path the host
// removed, recorded as the launch records it, under the same lock; it
// returns what it made. Another project's session standing on it may have
// made it first: that one is as good. Anything else there was made by
// someone after the host removed the placeholder (the host, or a sandbox):
// standAgain returns nil, and keep guards what is there.
func (w *watch) standAgain(path string) (*unix.Stat_t, error) {
	kind, ok := w.req.StandIns[path]
	if !ok {
		return nil, fmt.Errorf("%s was removed on the host, and the sandbox could create it in its place", strconv.Quote(path))
	}
	unlock, err := instance.LockPlaceholders(w.req.Instance)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := instance.RecordPlaceholders(w.req.Instance, []string{path}); err != nil {
		return nil, err
	}
	err = guard.CreatePlaceholder(mount.Mount{Kind: mount.Kind(kind), Dest: path})
	switch {
	case errors.Is(err, os.ErrExist) && !instance.IsPlaceholder(path):
		return nil, nil
	case errors.Is(err, os.ErrExist):
	case errors.Is(err, os.ErrNotExist):
		// Removed again the moment it was made: keep looks again.
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cannot make the stand-in %s again: %v", strconv.Quote(path), err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); errors.Is(err, unix.ENOENT) {
		// Removed again at once: keep looks again.
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return &st, nil
}

// standDirAgain stands again, inside, the stand-in directory made again
// at path on the host (made, st): a private empty read-only directory, as
// at the start, holding private empty copies of the files Claude Code
// saves there. The host's directory is hidden under it; a sandbox process
// that took a descriptor of it in the moment before could write it on the
// host, so one that holds it ends the session (its own doing), and what it
// wrote is no longer a stand-in, which the exit audit reads. It returns
// errAgain where the path no longer names what was made: keep looks again.
func (w *watch) standDirAgain(path string, made unix.Stat_t) error {
	err := w.sb.inside(func() error {
		var st unix.Statx_t
		err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO, &st)
		if errors.Is(err, unix.ENOENT) {
			return errAgain
		}
		if err != nil {
			return err
		}
		if st.Ino != made.Ino || unix.Mkdev(st.Dev_major, st.Dev_minor) != made.Dev || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			return errAgain
		}
		return privateDir(path, w.req.Saved[path])
	})
	if err == errAgain || errors.Is(err, unix.ENOENT) {
		// Removed again before the mount went on it.
		return errAgain
	}
	if err != nil {
		return fmt.Errorf("cannot stand in for %s again: %v", strconv.Quote(path), err)
	}
	var host unix.Stat_t
	var inside unix.Statx_t
	err = w.sb.inside(func() error {
		return unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO, &inside)
	})
	if unix.Lstat(path, &host) != nil || err != nil || inside.Attributes&unix.STATX_ATTR_MOUNT_ROOT == 0 || unix.Mkdev(inside.Dev_major, inside.Dev_minor) == made.Dev {
		// Removed again, and the mount inside went with it (the kernel
		// detaches mounts on a removed directory): keep guards what the
		// path names now.
		return errAgain
	}
	// The mount stands on what was made, or on what someone made in its
	// place in the moment before (the same inode number may come back):
	// no process in the sandbox may hold either; what was written in it
	// is no stand-in, and the exit audit reads it.
	for _, st := range []unix.Stat_t{made, host} {
		placed := unix.Statx_t{Ino: st.Ino, Dev_major: unix.Major(st.Dev), Dev_minor: unix.Minor(st.Dev), Mnt_id: ^uint64(0)}
		if err := w.sb.inside(func() error { return heldElsewhere("/proc", path, placed) }); err != nil {
			return err
		}
	}
	return nil
}

// privateDir mounts over path a private empty directory, read-only but
// for the private empty files saved, as bwrap's --perms 0555 --tmpfs
// does; its .gitignore keeps git from offering those files for a commit.
func privateDir(path string, saved []string) error {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen: %v", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "mode", "0755"); err != nil {
		return fmt.Errorf("fsconfig: %v", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("fsconfig: %v", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return fmt.Errorf("fsmount: %v", err)
	}
	defer unix.Close(mnt)
	files := map[string]string{}
	for _, f := range saved {
		files[f] = ""
	}
	if len(saved) > 0 {
		files[".gitignore"] = "*\n"
	}
	for name, content := range files {
		mode := uint32(0o644)
		if name == ".gitignore" {
			mode = 0o444
		}
		fd, err := unix.Openat(mnt, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
		if err != nil {
			return err
		}
		_, err = unix.Write(fd, []byte(content))
		unix.Close(fd)
		if err != nil {
			return err
		}
	}
	// fsmount's descriptor is a path's, which fchmod refuses.
	root, err := unix.Openat(mnt, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	err = unix.Fchmod(root, 0o555)
	unix.Close(root)
	if err != nil {
		return err
	}
	return unix.MoveMount(mnt, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// emptyStandIn reports whether the placeholder at path, of status st, is
// still the stand-in a launch makes: for a directory, with nothing in it.
func emptyStandIn(path string, st unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		entries, err := os.ReadDir(path)
		if err != nil || len(entries) > 0 {
			return false
		}
	}
	return instance.IsPlaceholder(path)
}

// hold leases the file the guard at path stands on, for the rest of the
// session, and looks for what holds it past the guard. The lease is
// taken through the host's path: a descriptor opened through the guard
// would keep its mount alive after the host next replaces the file.
func (w *watch) hold(path string, guard unix.Statx_t) error {
	fd, err := leaseFile(path, guard)
	if err != nil {
		return err
	}
	if old, ok := w.leases[path]; ok {
		// Its last close frees the file the host replaced, which takes
		// a while.
		go unix.Close(old)
	}
	w.leases[path] = fd
	return w.sb.inside(func() error { return heldElsewhere("/proc", path, guard) })
}

// restore is keep's part inside the sandbox; it returns what a new guard
// shows, nil if the guard still stood.
func restore(path string) (*unix.Statx_t, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, errRemoved
	case err != nil:
		return nil, err
	case st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0:
		return nil, errors.New("the kernel does not say which paths are mounts (statx)")
	case st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Nlink > 1:
		// A name an earlier session gave the file writes it past the guard.
		return nil, anotherName(path)
	case stands(st):
		return nil, nil
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return nil, fmt.Errorf("%s was replaced by a symlink on the host, which no mount can protect", strconv.Quote(path))
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		// Removed since the look above (an enclosing project's agent
		// removing it again and again): look again.
		return nil, errAgain
	}
	if err != nil {
		return nil, fmt.Errorf("cannot guard %s again: open_tree: %v", strconv.Quote(path), err)
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return nil, fmt.Errorf("cannot guard %s again: mount_setattr: %v", strconv.Quote(path), err)
	}
	err = unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
	if errors.Is(err, unix.ENOENT) {
		// The host replaced the file again after open_tree: the clone
		// stands on a removed file, and nothing was mounted.
		return nil, errAgain
	}
	if err != nil {
		return nil, fmt.Errorf("cannot guard %s again: move_mount: %v", strconv.Quote(path), err)
	}
	var now unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_MNT_ID|unix.STATX_NLINK, &now); err != nil {
		return nil, err
	}
	// The sandbox may have swapped the path between the two looks, or
	// given the new file a second name to write it through.
	if now.Ino != st.Ino || now.Dev_major != st.Dev_major || now.Dev_minor != st.Dev_minor {
		return nil, errAgain
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR && now.Nlink > 1 {
		return nil, anotherName(path)
	}
	return &now, nil
}

// errAgain says the host replaced the path while it was being guarded.
var errAgain = errors.New("replaced again")

// errRemoved says the guarded path is gone: the host removed it.
var errRemoved = errors.New("removed")

func anotherName(path string) error {
	return fmt.Errorf("%s has another name the sandbox could write it through (find -samefile names it)", strconv.Quote(path))
}

// sameFile reports whether two paths name the same file (following links).
func sameFile(a, b string) bool {
	var sa, sb unix.Stat_t
	return unix.Stat(a, &sa) == nil && unix.Stat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
