package guardwatch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/gitconfig"
)

// copyMaker is a thread of the watcher's in a mount namespace of its own,
// holding a private tmpfs, where it writes the copies of a repository's git
// configuration that stand inside (gitconfig.RepositoryCopy): a mount
// joins the sandbox's namespace only from one the watcher may mount in,
// which the host's is not, and nothing of the sandbox's sees this one.
type copyMaker struct {
	do chan func()
	// dir is the tmpfs's root; made counts the copies made in it.
	dir  int
	made int
}

func newCopyMaker() (*copyMaker, error) {
	c := &copyMaker{do: make(chan func())}
	entered := make(chan error)
	go func() {
		// Never unlocked: Go ends the thread with the goroutine, so no
		// other goroutine runs in its namespace.
		runtime.LockOSThread()
		// A namespace a user namespace makes receives the host's mounts
		// and unmounts, and sends none back.
		err := unix.Unshare(unix.CLONE_FS | unix.CLONE_NEWNS)
		if err == nil {
			c.dir, err = copiesTmpfs()
		}
		entered <- err
		if err != nil {
			return
		}
		for f := range c.do {
			f()
		}
	}()
	if err := <-entered; err != nil {
		return nil, fmt.Errorf("cannot make a place for git configuration's copies: %v", err)
	}
	return c, nil
}

// copiesTmpfs mounts a tmpfs over the thread's root, in its own namespace,
// and returns its root's descriptor: only a mount attached to a namespace
// can be cloned (open_tree), and the root is a directory every system has.
// The thread's own lookups start below it and never see it.
func copiesTmpfs() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen: %v", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "mode", "0700"); err != nil {
		return -1, fmt.Errorf("fsconfig: %v", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return -1, fmt.Errorf("fsconfig: %v", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsmount: %v", err)
	}
	if err := unix.MoveMount(mnt, "", unix.AT_FDCWD, "/", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		unix.Close(mnt)
		return -1, fmt.Errorf("move_mount: %v", err)
	}
	return mnt, nil
}

// clone returns a detached read-only mount of a new file holding content,
// to stand inside, and a function that removes the file's name once it
// stands (the mount keeps it; a name would be a second way to it).
func (c *copyMaker) clone(content []byte) (tree int, done func(), err error) {
	ran := make(chan struct{})
	c.do <- func() {
		defer close(ran)
		c.made++
		name := "config-" + strconv.Itoa(c.made)
		var fd int
		if fd, err = unix.Openat(c.dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444); err != nil {
			return
		}
		_, err = unix.Write(fd, content)
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
		if err == nil {
			tree, err = unix.OpenTree(c.dir, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		}
		if err == nil {
			attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC}
			if err = unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
				unix.Close(tree)
			}
		}
		if err != nil {
			unix.Unlinkat(c.dir, name, 0)
			return
		}
		done = func() {
			c.do <- func() { unix.Unlinkat(c.dir, name, 0) }
		}
	}
	<-ran
	if err != nil {
		return -1, nil, fmt.Errorf("cannot make a copy of git configuration: %v", err)
	}
	return tree, done, nil
}

// restoreCopy stands the guard at path again where the host replaced a
// repository's git configuration (git config, git remote add, git push
// -u): over the host's new file goes a private read-only copy of what git
// needs, made from it (gitconfig.RepositoryCopy), never the file itself,
// which holds what the host wrote there (a remote's token, a header). It
// returns the host's file, which no mount inside shows (Mnt_id is none):
// the sandbox may have opened it in the moment before the copy stood, or
// may write it through a second name, which keep's hold sees to. It
// returns nil if the guard still stood.
func (w *watch) restoreCopy(path string) (*unix.Statx_t, error) {
	var seen unix.Statx_t
	err := w.sb.inside(func() error {
		err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_NLINK, &seen)
		switch {
		case errors.Is(err, unix.ENOENT):
			return errRemoved
		case err != nil:
			return err
		case seen.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0:
			return errors.New("the kernel does not say which paths are mounts (statx)")
		case stands(seen):
			return errStands
		case seen.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0:
			return anotherName(path)
		case seen.Mode&unix.S_IFMT == unix.S_IFLNK:
			return fmt.Errorf("%s was replaced by a symlink on the host, which no mount can protect", strconv.Quote(path))
		case seen.Mode&unix.S_IFMT != unix.S_IFREG:
			return fmt.Errorf("%s was replaced on the host by what is no file", strconv.Quote(path))
		}
		return nil
	})
	if err == errStands {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// The host's file, which the path shows inside too.
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, errAgain
	}
	defer f.Close()
	var host unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &host); err != nil || host.Ino != seen.Ino || host.Dev != unix.Mkdev(seen.Dev_major, seen.Dev_minor) {
		return nil, errAgain
	}
	if host.Nlink > 1 {
		return nil, anotherName(path)
	}
	// One larger than git's configuration is, the sandbox's doing: an
	// empty copy, as for one git cannot read.
	b, err := io.ReadAll(io.LimitReader(f, configLimit+1))
	if err != nil || len(b) > configLimit {
		b = nil
	}
	if w.copies == nil {
		if w.copies, err = newCopyMaker(); err != nil {
			return nil, err
		}
	}
	tree, placed, err := w.copies.clone(gitconfig.RepositoryCopy(b))
	if err != nil {
		return nil, err
	}
	defer unix.Close(tree)
	defer placed()
	err = w.sb.inside(func() error {
		var now unix.Statx_t
		err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO, &now)
		if errors.Is(err, unix.ENOENT) || err == nil && (now.Ino != seen.Ino || now.Dev_major != seen.Dev_major || now.Dev_minor != seen.Dev_minor || now.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0) {
			return errAgain
		}
		if err != nil {
			return err
		}
		err = unix.MoveMount(tree, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
		if errors.Is(err, unix.ENOENT) {
			return errAgain
		}
		if err != nil {
			return fmt.Errorf("cannot guard %s again: move_mount: %v", strconv.Quote(path), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The host replaced the file again while the copy was made: the copy
	// went over an older file (and went with it) or over the newer one,
	// which it does not show; the next round makes one of that.
	var now unix.Stat_t
	if unix.Lstat(path, &now) != nil || now.Ino != host.Ino || now.Dev != host.Dev {
		w.sb.inside(func() error { return unix.Unmount(path, unix.MNT_DETACH) })
		return nil, errAgain
	}
	return &unix.Statx_t{Mode: uint16(host.Mode), Ino: host.Ino, Dev_major: unix.Major(host.Dev), Dev_minor: unix.Minor(host.Dev), Mnt_id: ^uint64(0)}, nil
}

// errStands says a guard still stands.
var errStands = errors.New("stands")
