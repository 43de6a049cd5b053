package probe

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// usersOwnDepth bounds the walk of /etc: a directory deeper is hidden
// whole where not every user may read it, as one unwalked is.
const usersOwnDepth = 32

// usersOwn lists what in the system directory dir the user may read and
// not every user may: what the user's uid or groups open (a TLS key in
// /etc/ssl/private for the group ssl-cert, a service's password file
// made root:dev 0640, a file the user owns) is the user's secret as
// ~/.ssh is, and only what every user reads crosses. A directory not
// every user may enter is listed whole, not walked; what the user cannot
// read is left out (the kernel refuses it inside too), as are links
// (what they lead to is judged where it lies), and certificates alone,
// which are public (a corporate CA a variable names may lie there). Each entry is looked at
// through its directory's descriptor (a launch pays for every entry of
// /etc); the list is sorted.
func usersOwn(dir string) []mount.HostEntry {
	var own []mount.HostEntry
	var walk func(fd int, d string, depth int)
	walk = func(fd int, d string, depth int) {
		f := os.NewFile(uintptr(fd), d)
		defer f.Close()
		for {
			names, err := f.Readdirnames(256)
			for _, name := range names {
				var st unix.Stat_t
				if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				p := filepath.Join(d, name)
				switch st.Mode & unix.S_IFMT {
				case unix.S_IFDIR:
					if unix.Faccessat(fd, name, unix.X_OK, 0) != nil {
						continue
					}
					if st.Mode&0o005 != 0o005 || depth >= usersOwnDepth {
						own = append(own, mount.HostEntry{Path: p, Dir: true})
						continue
					}
					sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
					if err != nil {
						own = append(own, mount.HostEntry{Path: p, Dir: true})
						continue
					}
					walk(sub, p, depth+1)
				case unix.S_IFREG:
					if st.Mode&0o004 == 0 && unix.Faccessat(fd, name, unix.R_OK, 0) == nil && !certificates(p) {
						own = append(own, mount.HostEntry{Path: p})
					}
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				own = append(own, mount.HostEntry{Path: d, Dir: true})
				return
			}
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return []mount.HostEntry{{Path: dir, Dir: true}}
	}
	walk(fd, dir, 0)
	slices.SortFunc(own, func(a, b mount.HostEntry) int { return strings.Compare(a.Path, b.Path) })
	return own
}

// certificates says the file at path is PEM certificates and nothing
// else.
func certificates(path string) bool {
	b, err := untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), 1<<20)
	return err == nil && onlyCertificates(b)
}
