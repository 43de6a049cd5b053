package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// A guard is a read-only mount on a dentry inside the read-write project.
// When the host replaces a guarded file by rename (git config, an editor's
// save), the kernel detaches every other namespace's mount from the old
// dentry, and the new file would be writable from inside. So claudebox
// keeps a watcher beside each sandbox: a process of its own, outside the
// sandbox's pid namespace, that owns the user namespace bwrap joins and so
// may mount in the sandbox's mount namespace. It watches the directories
// holding the guards and puts a guard back the moment its path is replaced;
// where it cannot (the path was removed, or the sandbox holds the new file
// open), it ends the session.

// guardWatcher is the supervisor's side of the watcher.
type guardWatcher struct {
	cmd *exec.Cmd
	// sandbox is the sandbox's first process: killing it ends every
	// process in the sandbox.
	sandbox int
	in      io.WriteCloser
	out     *bufio.Reader
	userns  *os.File
	// reason is why the watcher ended the session; done closes when the
	// watcher has said all it will.
	reason   atomic.Value
	done     chan struct{}
	stopping atomic.Bool
}

// watchRequest is what the supervisor tells the watcher once bwrap has
// made the sandbox.
type watchRequest struct {
	Pid    int      `json:"pid"`
	Guards []string `json:"guards"`
	// Roots are the directories bound from the host at their own path: the
	// sandbox's mount of one stays where it is when the host moves it, and
	// the sandbox cannot write where it was.
	Roots []string `json:"roots"`
}

// startGuarded starts cmd, bwrap with the plan's descriptors in ExtraFiles,
// in the watcher's user namespace, and returns once the guards are watched
// and the sandbox may run its command.
func startGuarded(cmd *exec.Cmd, start func(*exec.Cmd) error, guards, roots []string) (*guardWatcher, error) {
	w, err := startWatcher()
	if err != nil {
		return nil, err
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		w.kill()
		return nil, err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		w.kill()
		return nil, err
	}
	defer blockW.Close()
	cmd.ExtraFiles = append(cmd.ExtraFiles, w.userns, infoW, blockR)
	err = start(cmd)
	closeAll([]*os.File{w.userns, infoW, blockR})
	if err != nil {
		w.kill()
		return nil, err
	}
	// bwrap names the sandbox's first process once it exists; if it says
	// nothing, it failed before making one, and its status says why.
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if json.NewDecoder(infoR).Decode(&info) != nil || info.ChildPid <= 0 {
		w.kill()
		return w, nil
	}
	if w.sandbox, err = unix.PidfdOpen(info.ChildPid, 0); err != nil {
		w.kill()
		cmd.Process.Kill()
		return w, nil
	}
	req, _ := json.Marshal(watchRequest{Pid: info.ChildPid, Guards: guards, Roots: roots})
	w.in.Write(append(req, '\n'))
	if line, _ := w.out.ReadString('\n'); line != "ready\n" {
		w.end(cmd, line)
		return w, nil
	}
	blockW.Write([]byte{0})
	go func() {
		line, _ := w.out.ReadString('\n')
		w.end(cmd, line)
	}()
	return w, nil
}

// startWatcher starts the watcher in a user namespace of its own, where it
// keeps the capabilities to mount in the sandbox's mount namespace, and
// opens that namespace for bwrap to join.
func startWatcher() (*guardWatcher, error) {
	w := &guardWatcher{done: make(chan struct{}), sandbox: -1}
	w.cmd = &exec.Cmd{
		Path: "/proc/self/exe",
		Args: []string{"claudebox", "--watch-guards"},
		Env:  []string{},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags:                 unix.CLONE_NEWUSER,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
			GidMappingsEnableSetgroups: false,
			AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SYS_CHROOT, unix.CAP_SYS_PTRACE},
			Pdeathsig:                  unix.SIGKILL,
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
		w.kill()
		return nil, err
	}
	return w, nil
}

// end records why the watcher stopped and ends the sandbox, unless the
// session is ending anyway.
func (w *guardWatcher) end(cmd *exec.Cmd, line string) {
	defer close(w.done)
	if w.stopping.Load() {
		return
	}
	reason := strings.TrimPrefix(strings.TrimSpace(line), "claudebox: ")
	if reason == "" {
		reason = "the guard watcher stopped"
	}
	w.reason.Store(reason)
	unix.PidfdSendSignal(w.sandbox, unix.SIGKILL, nil, 0)
	cmd.Process.Kill()
}

func (w *guardWatcher) kill() {
	w.stopping.Store(true)
	w.cmd.Process.Kill()
	w.cmd.Wait()
}

// stop ends the watcher after the sandbox has ended, and returns why it
// ended the session, if it did.
func (w *guardWatcher) stop() error {
	if w == nil {
		return nil
	}
	w.stopping.Store(true)
	w.cmd.Process.Kill()
	w.cmd.Wait()
	unix.Close(w.sandbox)
	select {
	case <-w.done:
	case <-time.After(time.Second):
	}
	if r, ok := w.reason.Load().(string); ok {
		return hint.Errorf("start claudebox again", "session ended: %s", r)
	}
	return nil
}

// WatchGuards is the watcher's process (claudebox --watch-guards): it reads
// the sandbox's pid and the guarded paths, then keeps the guards standing
// until the supervisor kills it. It says "ready" once the guards stand;
// any error ends the session.
func WatchGuards(stdin io.Reader, stdout io.Writer) error {
	var req watchRequest
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return err
	}
	ino, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		// EMFILE: the kernel's per-user count, which the sandboxes share.
		return fmt.Errorf("cannot watch the guards: %v (fs.inotify.max_user_instances: your processes, a sandbox's among them, hold them all)", err)
	}
	dirs := map[int]string{}
	guarded := map[string]bool{}
	for _, g := range req.Guards {
		guarded[g] = true
		wd, err := unix.InotifyAddWatch(ino, filepath.Dir(g), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_DELETE|unix.IN_MOVED_FROM|
			unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
		if err != nil {
			return fmt.Errorf("cannot watch %s: %v", filepath.Dir(g), err)
		}
		dirs[wd] = filepath.Dir(g)
	}
	sb, err := enterSandbox(req.Pid, filepath.Dir(req.Guards[0]))
	if err != nil {
		return err
	}
	// The host may have replaced a guard before bwrap's mount stood.
	for _, g := range req.Guards {
		if err := sb.keep(g); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, "ready")
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(ino, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				for _, g := range req.Guards {
					if err := sb.keep(g); err != nil {
						return err
					}
				}
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 && slices.Contains(req.Roots, dirs[int(ev.Wd)]):
			case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
				return fmt.Errorf("%s, which holds guarded paths, was moved or removed on the host", quoted(dirs[int(ev.Wd)]))
			case guarded[filepath.Join(dirs[int(ev.Wd)], name)]:
				if err := sb.keep(filepath.Join(dirs[int(ev.Wd)], name)); err != nil {
					return err
				}
			}
		}
	}
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
	// Only a process in the watcher's own user namespace can be the sandbox.
	if !sameFile("/proc/self/ns/user", proc+"/ns/user") {
		return nil, fmt.Errorf("process %d is not the sandbox", pid)
	}
	mnt, err := os.Open(proc + "/ns/mnt")
	if err != nil {
		return nil, err
	}
	defer mnt.Close()
	// bwrap pivots to a root of its own, then changes into the sandbox's
	// root below it; then it waits for us.
	for deadline := time.Now().Add(10 * time.Second); sameFile("/", proc+"/root") || !instance.Exists(proc+"/root"+dir); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
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

// keep makes sure the guard at path stands in the sandbox: if the path is
// no longer a mount (the host replaced it), it binds what is there now
// read-only over it, without following a symlink; then it checks that
// nothing in the sandbox got hold of it in the meantime.
func (v *sandboxView) keep(path string) error {
	var placed *unix.Statx_t
	for range 100 {
		var guard *unix.Statx_t
		done := make(chan error)
		v.do <- func() {
			var err error
			guard, err = restore(path)
			done <- err
		}
		if err := <-done; err != nil {
			return err
		}
		if guard == nil && placed == nil {
			return nil
		}
		if guard != nil {
			placed = guard
		}
		// What the new mount stands on must be what it shows. If the host
		// has replaced the file again, that mount is gone too and the next
		// round guards the newer file; if the guard still stands on
		// something else, the sandbox swapped the path just before the
		// mount went on it.
		var host unix.Stat_t
		if unix.Lstat(path, &host) == nil && host.Ino == placed.Ino && host.Dev == unix.Mkdev(placed.Dev_major, placed.Dev_minor) {
			return nil
		}
		if guard == nil {
			break
		}
	}
	return fmt.Errorf("%s changed while it was being guarded again", quoted(path))
}

// restore is keep's part inside the sandbox; it returns what a new guard
// shows, nil if the guard still stood.
func restore(path string) (*unix.Statx_t, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, fmt.Errorf("%s was removed on the host, and the sandbox could create it in its place", quoted(path))
	case err != nil:
		return nil, err
	case st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0:
		return nil, errors.New("the kernel does not say which paths are mounts (statx)")
	case st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Nlink > 1:
		// A name an earlier session gave the file writes it past the guard.
		return nil, anotherName(path)
	case st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0:
		return nil, nil
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return nil, fmt.Errorf("%s was replaced by a symlink on the host, which no mount can protect", quoted(path))
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return nil, fmt.Errorf("cannot guard %s again: open_tree: %v", quoted(path), err)
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return nil, fmt.Errorf("cannot guard %s again: mount_setattr: %v", quoted(path), err)
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return nil, fmt.Errorf("cannot guard %s again: move_mount: %v", quoted(path), err)
	}
	var now unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_MNT_ID|unix.STATX_NLINK, &now); err != nil {
		return nil, err
	}
	// The sandbox may have swapped the path between the two looks, or
	// given the new file a second name to write it through.
	if now.Ino != st.Ino || now.Dev_major != st.Dev_major || now.Dev_minor != st.Dev_minor {
		return nil, fmt.Errorf("%s changed while it was being guarded again", quoted(path))
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR && now.Nlink > 1 {
		return nil, anotherName(path)
	}
	return &now, heldInside(path, now)
}

func anotherName(path string) error {
	return fmt.Errorf("%s has another name the sandbox could write it through (find -samefile names it)", quoted(path))
}

// heldInside fails if a process of the sandbox can still write the guarded
// path around its new mount: a descriptor or working directory on the
// path or beneath it that is not on the guard's mount (it could write
// through it, or reopen it for writing through /proc/self/fd), or a shared
// writable mapping of it. The view's /proc is the sandbox's own.
func heldInside(path string, guard unix.Statx_t) error {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := "/proc/" + p.Name()
		links := []string{dir + "/cwd", dir + "/root"}
		fds, _ := os.ReadDir(dir + "/fd")
		for _, fd := range fds {
			links = append(links, dir+"/fd/"+fd.Name())
		}
		for _, l := range links {
			target, err := os.Readlink(l)
			if err != nil {
				continue
			}
			var st unix.Statx_t
			if unix.Statx(unix.AT_FDCWD, l, 0, unix.STATX_INO|unix.STATX_MNT_ID, &st) != nil || st.Mnt_id == guard.Mnt_id {
				continue
			}
			same := st.Ino == guard.Ino && st.Dev_major == guard.Dev_major && st.Dev_minor == guard.Dev_minor
			if same || (guard.Mode&unix.S_IFMT == unix.S_IFDIR && instance.Within(target, path) && target != path) {
				return fmt.Errorf("a process in the sandbox holds %s open past its guard", quoted(path))
			}
		}
		maps, _ := os.ReadFile(dir + "/maps")
		for _, line := range strings.Split(string(maps), "\n") {
			f := strings.Fields(line)
			if len(f) >= 6 && len(f[1]) == 4 && f[1][1] == 'w' && f[1][3] == 's' && f[4] == strconv.FormatUint(guard.Ino, 10) {
				return fmt.Errorf("a process in the sandbox maps %s writable", quoted(path))
			}
		}
	}
	return nil
}

// sameFile reports whether two paths name the same file (following links).
func sameFile(a, b string) bool {
	var sa, sb unix.Stat_t
	return unix.Stat(a, &sa) == nil && unix.Stat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// quoted shows a path the sandbox may have named, with control characters
// escaped.
func quoted(path string) string { return strconv.Quote(path) }

// startPlan starts bwrap for the plan with its guard watcher.
func startPlan(cmd *exec.Cmd, start func(*exec.Cmd) error, p mount.Plan) (*guardWatcher, error) {
	var guards []string
	for _, g := range p.Guards {
		guards = append(guards, g.Path)
	}
	return startGuarded(cmd, start, guards, append([]string{p.Project.Checkout}, p.Project.GitDirs...))
}
