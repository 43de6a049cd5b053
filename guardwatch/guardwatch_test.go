package guardwatch

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMain lets the test binary be the watcher's process, as Start starts
// /proc/self/exe --watch-guards.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "--watch-guards" {
		if err := Run(os.Stdin, os.Stdout); err != nil {
			fmt.Println("claudebox:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The main thread, whose descriptor table /proc/PID/fd lists, runs no
	// test: TestHeldElsewhere's thread is another.
	runtime.LockOSThread()
	os.Exit(m.Run())
}

// TestStartWithoutSandbox: bwrap fails before it makes a sandbox. Attach
// returns with the watcher already done (Stop once waited a second for a
// channel no one closed), and Stop says nothing ended the session.
func TestStartWithoutSandbox(t *testing.T) {
	dir := t.TempDir()
	w, err := Launch()
	if err != nil {
		t.Skipf("cannot start the watcher here: %v", err)
	}
	if err := w.Attach(exec.Command("/bin/true"), (*exec.Cmd).Start, []string{filepath.Join(dir, "config")}, nil, []string{dir}, StandIns{}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("the watcher of a sandbox that never started is not done")
	}
	if err := w.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

// TestWatcherOneProcessor: the watcher's runtime starts on one processor.
func TestWatcherOneProcessor(t *testing.T) {
	w, err := Launch()
	if err != nil {
		t.Skipf("cannot start the watcher here: %v", err)
	}
	defer w.Abandon()
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", w.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(environ), "\x00"), "GOMAXPROCS=1") {
		t.Errorf("the watcher's environment is %q, without GOMAXPROCS=1", environ)
	}
}

// TestWatcherOwnProcessGroup: the watcher is not in claudebox's process
// group, to which a terminal's Ctrl-C goes (in claudebox -p's, it stopped
// the watcher, which ended the session as failed:
// TestFirstDay42CtrlCMidToolSaysNoFailure).
func TestWatcherOwnProcessGroup(t *testing.T) {
	w, err := Launch()
	if err != nil {
		t.Skipf("cannot start the watcher here: %v", err)
	}
	defer w.Abandon()
	if group, err := unix.Getpgid(w.cmd.Process.Pid); err != nil || group == unix.Getpgrp() {
		t.Errorf("the watcher's process group is %d (%v), claudebox's", group, err)
	}
}

// heldFile is a file of the test's own and a /proc with only the test's
// process in it; its guard is another mount than the file's.
func heldFile(t *testing.T) (path, proc string, guard unix.Statx_t) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_MNT_ID, &guard); err != nil {
		t.Fatal(err)
	}
	guard.Mnt_id++
	proc = filepath.Join(dir, "proc")
	os.Mkdir(proc, 0o755)
	if err := os.Symlink(fmt.Sprintf("/proc/%d", os.Getpid()), filepath.Join(proc, "1")); err != nil {
		t.Fatal(err)
	}
	return path, proc, guard
}

// TestHeldElsewhere: every way the test's own process can hold the file
// counts as held; letting go of it does not.
func TestHeldElsewhere(t *testing.T) {
	path, proc, guard := heldFile(t)
	if err := heldElsewhere(proc, path, guard); err != nil {
		t.Fatalf("nothing holds the file: %v", err)
	}
	fd, err := unix.Open(path, unix.O_PATH, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := heldElsewhere(proc, path, guard); err == nil || !strings.Contains(err.Error(), "open past its guard") {
		t.Errorf("a descriptor (O_PATH): %v", err)
	}
	unix.Close(fd)

	// A shared mapping, read-only, its descriptor closed.
	fd, _ = unix.Open(path, unix.O_RDONLY, 0)
	mapped, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_SHARED)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	if err := heldElsewhere(proc, path, guard); err == nil || !strings.Contains(err.Error(), "maps") {
		t.Errorf("a read-only shared mapping: %v", err)
	}
	unix.Munmap(mapped)

	// A thread's own descriptor table. The thread ends with its goroutine.
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
	holding, release := make(chan error), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		err := unix.Unshare(unix.CLONE_FILES)
		if err == nil {
			_, err = unix.Open(path, unix.O_RDONLY, 0)
		}
		holding <- err
		<-release
	}()
	if err := <-holding; err != nil {
		t.Fatal(err)
	}
	err = heldElsewhere(proc, path, guard)
	close(release)
	if err == nil {
		t.Error("a descriptor in a thread's own table is not held")
	}
	if err := heldElsewhere(proc, path, guard); err != nil && strings.Contains(err.Error(), "cannot see") {
		t.Errorf("a thread that ended: %v", err)
	}
}

// TestHeldElsewhereCannotSee: a process whose threads cannot be listed
// counts as holding the file.
func TestHeldElsewhereCannotSee(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	os.WriteFile(path, nil, 0o644)
	var guard unix.Statx_t
	unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_INO|unix.STATX_MNT_ID, &guard)
	proc := filepath.Join(dir, "proc")
	os.MkdirAll(filepath.Join(proc, "7"), 0o755)
	os.WriteFile(filepath.Join(proc, "7", "task"), nil, 0o644)
	if err := heldElsewhere(proc, path, guard); err == nil || !strings.Contains(err.Error(), "cannot see") {
		t.Errorf("an unreadable entry: %v", err)
	}
}

// TestLease: the lease is refused while a descriptor open for writing is in
// flight over a socket, granted once it is gone, and broken, holding the
// opener back, when the file is opened for writing through a descriptor
// that could not write (O_PATH, reopened through /proc/self/fd).
func TestLease(t *testing.T) {
	path, _, guard := heldFile(t)
	guard.Mnt_id--
	sock, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd, _ := unix.Open(path, unix.O_WRONLY, 0)
	if err := unix.Sendmsg(sock[0], []byte{0}, unix.UnixRights(fd), nil, 0); err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	if fd, err := leaseFile(path, guard); err == nil || !strings.Contains(err.Error(), "open for writing") {
		unix.Close(fd)
		t.Fatalf("a writable descriptor in flight: %v", err)
	}
	unix.Close(sock[0])
	unix.Close(sock[1])

	broken := make(chan os.Signal, 1)
	signal.Notify(broken, unix.SIGIO)
	defer signal.Stop(broken)
	opath, _ := unix.Open(path, unix.O_PATH, 0)
	defer unix.Close(opath)
	lease, err := leaseFile(path, guard)
	if err != nil {
		t.Fatalf("nothing holds the file for writing: %v", err)
	}
	opened := make(chan error, 1)
	go func() {
		fd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", opath), unix.O_WRONLY, 0)
		unix.Close(fd)
		opened <- err
	}()
	<-broken
	select {
	case <-opened:
		t.Error("the open for writing went ahead while the lease held")
	default:
	}
	w := &watch{leases: map[string]int{path: lease}}
	if err := w.leaseBroken(); !strings.Contains(err.Error(), path) {
		t.Errorf("leaseBroken: %v", err)
	}
	unix.Close(lease)
	<-opened
}

// TestSayChanges: a guarded git config that gained a command to run shows
// it beside its old value; a changed file git does not read as
// configuration, and settings that run nothing, show nothing.
func TestSayChanges(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	config, envrc := filepath.Join(dir, "config"), filepath.Join(dir, ".envrc")
	os.WriteFile(config, []byte("[core]\n\tpager = less\n[alias]\n\tst = status\n"), 0o644)
	os.WriteFile(envrc, []byte("export A=1\n"), 0o644)
	w := &Watcher{before: takeSnapshot([]string{config, envrc})}
	w.before.git = git
	os.WriteFile(config, []byte("[core]\n\tpager = less\n\tfsmonitor = \"touch /tmp/x\"\n\tbare = false\n[alias]\n\tst = status\n\tx = !sh -c id\n\ty = log\n[includeIf \"gitdir:/\"]\n\tpath = /tmp/evil\n"), 0o644)
	os.WriteFile(envrc, []byte("touch /tmp/x\n"), 0o644)
	var out bytes.Buffer
	w.SayChanges(&out)
	got := out.String()
	for _, want := range []string{
		`core.fsmonitor = "touch /tmp/x"   (before: unset)`,
		`alias.x = "!sh -c id"   (before: unset)`,
		`includeif.gitdir:/.path = "/tmp/evil"   (before: unset)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, not := range []string{"core.pager", "core.bare", "alias.y", "alias.st", ".envrc"} {
		if strings.Contains(got, not) {
			t.Errorf("%s shown:\n%s", not, got)
		}
	}
}

// TestHeldByExitingTask: a thread whose descriptors /proc will not show
// holds nothing if it is exiting (the kernel's PF_EXITING, set before it
// lets go of its memory, after which only root may list them) or a
// zombie; any other counts as holding the file.
func TestHeldByExitingTask(t *testing.T) {
	for _, c := range []struct {
		stat string
		held bool
	}{
		{"14 (sleep) R 2 1 1 0 -1 4194564 0 0", false}, // 0x400104: exiting
		{"14 (sleep) Z 2 1 1 0 -1 4194560 0 0", false},
		{"14 (a) b) S 2 1 1 0 -1 4194560 0 0", true}, // 0x400100: running
		{"14 (sleep) S 2", true},
	} {
		task := filepath.Join(t.TempDir(), "14")
		os.MkdirAll(task, 0o755)
		os.WriteFile(filepath.Join(task, "stat"), []byte(c.stat+"\n"), 0o644)
		os.WriteFile(filepath.Join(task, "fd"), nil, 0o644) // listing it fails
		err := heldByTask(task, "/x/config", unix.Statx_t{})
		if (err != nil) != c.held {
			t.Errorf("%q: %v, want held %v", c.stat, err, c.held)
		}
	}
}

// TestShareLimits: each count the user's programs share is set, in the
// sandbox's user namespace, to a quarter of the user's; one the kernel
// does not have is skipped.
func TestShareLimits(t *testing.T) {
	sys := t.TempDir()
	for path, content := range map[string]string{
		"fs/inotify/max_user_instances": "128\n",
		"fs/inotify/max_user_watches":   "192536\n",
		"user/max_inotify_instances":    "2147483647\n",
		"user/max_inotify_watches":      "2147483647\n",
	} {
		os.MkdirAll(filepath.Join(sys, filepath.Dir(path)), 0o755)
		if err := os.WriteFile(filepath.Join(sys, path), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := shareLimits(sys); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"max_inotify_instances": "32", "max_inotify_watches": "48134"} {
		if b, _ := os.ReadFile(filepath.Join(sys, "user", name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
}
