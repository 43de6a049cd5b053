package probe

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/claudebox/claudebox/mount"
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
// (what they lead to is judged where it lies).
func usersOwn(dir string) []mount.HostEntry {
	var own []mount.HostEntry
	var walk func(string, int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		if err != nil {
			own = append(own, mount.HostEntry{Path: d, Dir: true})
			return
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			fi, err := e.Info()
			if err != nil || fi.Mode()&os.ModeSymlink != 0 {
				continue
			}
			perm := fi.Mode().Perm()
			switch {
			case fi.IsDir():
				if syscall.Access(p, 1) != nil {
					continue
				}
				if perm&0o005 != 0o005 || depth >= usersOwnDepth {
					own = append(own, mount.HostEntry{Path: p, Dir: true})
					continue
				}
				walk(p, depth+1)
			case fi.Mode().IsRegular():
				if perm&0o004 == 0 && syscall.Access(p, 4) == nil {
					own = append(own, mount.HostEntry{Path: p})
				}
			}
		}
	}
	walk(dir, 0)
	return own
}
