package guardwatch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// leaseFile takes a read lease on the file at path, which must be guard;
// the kernel grants it only while no one holds the file open for writing,
// wherever the descriptor is, and breaks it the moment anyone opens the
// file for writing. It returns the descriptor that holds the lease.
func leaseFile(path string, guard unix.Statx_t) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("cannot open %s to hold it: %v", strconv.Quote(path), err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Ino != guard.Ino || st.Dev != unix.Mkdev(guard.Dev_major, guard.Dev_minor) {
		unix.Close(fd)
		return -1, errAgain
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EAGAIN) {
			return -1, fmt.Errorf("a process holds %s open for writing past its guard (a descriptor, a mapping, one passed over a socket or registered with io_uring)", strconv.Quote(path))
		}
		return -1, fmt.Errorf("cannot hold %s against writers (fcntl F_SETLEASE): %v", strconv.Quote(path), err)
	}
	return fd, nil
}

// heldElsewhere fails if a process under proc (the sandbox's /proc) holds
// the guarded file other than through its guard: a descriptor of any
// thread, on any mount but the guard's (it could reopen it for writing
// through /proc/self/fd), or a shared mapping of any protection. What it
// cannot read counts as held; a process or descriptor that is gone holds
// nothing.
func heldElsewhere(proc, path string, guard unix.Statx_t) error {
	procs, err := os.ReadDir(proc)
	if err != nil {
		return cannotSee(proc, err)
	}
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := proc + "/" + p.Name()
		tasks, err := os.ReadDir(dir + "/task")
		if gone(err) {
			continue
		}
		if err != nil {
			return cannotSee(dir+"/task", err)
		}
		for _, t := range tasks {
			if err := heldByTask(dir+"/task/"+t.Name(), path, guard); err != nil {
				return err
			}
		}
		maps, err := os.ReadFile(dir + "/maps")
		if gone(err) {
			continue
		}
		if err != nil {
			return cannotSee(dir+"/maps", err)
		}
		dev := fmt.Sprintf("%02x:%02x", guard.Dev_major, guard.Dev_minor)
		for _, line := range strings.Split(string(maps), "\n") {
			f := strings.Fields(line)
			if len(f) >= 5 && len(f[1]) == 4 && f[1][3] == 's' && f[3] == dev && f[4] == strconv.FormatUint(guard.Ino, 10) {
				return fmt.Errorf("a process in the sandbox maps %s shared", strconv.Quote(path))
			}
		}
	}
	return nil
}

// heldByTask looks through one thread's descriptors: a thread may have a
// table of its own (unshare CLONE_FILES), which the process's fd does not
// list.
func heldByTask(task, path string, guard unix.Statx_t) error {
	fds, err := os.ReadDir(task + "/fd")
	if gone(err) || (err != nil && exited(task)) {
		return nil
	}
	if err != nil {
		return cannotSee(task+"/fd", err)
	}
	// A directory is held as well as a working or root directory.
	names := []string{"../cwd", "../root"}
	for _, fd := range fds {
		names = append(names, fd.Name())
	}
	for _, name := range names {
		var st unix.Statx_t
		err := unix.Statx(unix.AT_FDCWD, task+"/fd/"+name, 0, unix.STATX_INO|unix.STATX_MNT_ID, &st)
		if gone(err) {
			continue
		}
		if err != nil && exited(task) {
			return nil
		}
		if err != nil {
			return cannotSee(task+"/fd/"+name, err)
		}
		if st.Ino == guard.Ino && st.Dev_major == guard.Dev_major && st.Dev_minor == guard.Dev_minor && st.Mnt_id != guard.Mnt_id {
			return fmt.Errorf("a process in the sandbox holds %s open past its guard", strconv.Quote(path))
		}
	}
	return nil
}

// exited says the thread has exited (a zombie's descriptors are closed,
// and /proc no longer shows them) or is exiting: the kernel marks it
// (PF_EXITING) before it lets go of its memory, after which /proc shows its
// descriptors to root alone, and a thread never returns to run anything
// from there.
func exited(task string) bool {
	stat, err := os.ReadFile(task + "/stat")
	if gone(err) {
		return true
	}
	// After the command's ")": state, ppid, pgrp, session, tty, tpgid, flags.
	fields := strings.Fields(string(stat[max(0, bytes.LastIndexByte(stat, ')')+1):]))
	if len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X") {
		return true
	}
	if len(fields) <= 6 {
		return false
	}
	const exiting = 0x4 // PF_EXITING
	flags, err := strconv.ParseUint(fields[6], 10, 64)
	return err == nil && flags&exiting != 0
}

// gone says an entry vanished: its process exited or closed the
// descriptor.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ESRCH)
}

func cannotSee(what string, err error) error {
	return fmt.Errorf("cannot see what the sandbox holds (%s: %v), so a guarded file it may hold counts as held", what, err)
}
