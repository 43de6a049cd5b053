package probe

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// usersOwnDepth bounds the walk of /etc's entries: a directory deeper is
// hidden whole where not every user may read it, as one unwalked is.
const usersOwnDepth = 32

// maxEtcCopy is the largest file of /etc the sandbox gets a copy of,
// rather than a bind (passwd, hosts, the linker's cache: tens of KiB).
const maxEtcCopy = 1 << 20

// etcShown finds the entries of mount.EtcShown in the system
// configuration etc: those that exist (a link as it is, what it leads to
// is judged where it lies; an entry on the way to which a link lies is
// not one), what of them the user may read and not every user may
// (usersOwn), and the rest of etc's entries, not shown (a directory of
// which some entries are shown is named by the others).
func etcShown(etc string) (shown []mount.HostPath, own []mount.HostEntry, leftOut []string) {
	var entries []string
	for _, rel := range mount.EtcShown {
		found, _ := filepath.Glob(filepath.Join(etc, rel))
		entries = append(entries, found...)
	}
	for _, p := range entries {
		if !realDirs(etc, filepath.Dir(p)) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			if link, err := os.Readlink(p); err == nil {
				shown = append(shown, mount.HostPath{Path: p, Link: link})
			}
		case fi.IsDir(), fi.Mode().IsRegular():
			entry := mount.HostPath{Path: p}
			hidden := usersOwn(p)
			if fi.Mode().IsRegular() && fi.Mode().Perm()&0o004 != 0 && fi.Size() <= maxEtcCopy && len(hidden) == 0 {
				entry.Checked = untrusted.IDOf(fi)
			}
			if rel, _ := filepath.Rel(etc, p); entry.Checked == (untrusted.FileID{}) && rebuilt(rel) {
				// Bound, it would cross as it is.
				leftOut = append(leftOut, rel)
				continue
			}
			shown = append(shown, entry)
			own = append(own, hidden...)
		}
	}
	slices.SortFunc(own, func(a, b mount.HostEntry) int { return strings.Compare(a.Path, b.Path) })
	var list func(rel string)
	list = func(rel string) {
		names, _ := readDirNames(filepath.Join(etc, rel))
		for _, name := range names {
			r := filepath.Join(rel, name)
			switch entry, above := etcMatch(r); {
			case entry:
			case above:
				list(r)
			default:
				leftOut = append(leftOut, r)
			}
		}
	}
	list("")
	slices.Sort(leftOut)
	return shown, own, leftOut
}

// etcMatch says whether rel is an entry of mount.EtcShown (where a
// pattern's * stands for a version, as in Debian's php/8.2/cli), or lies
// above one.
func etcMatch(rel string) (entry, above bool) {
	parts := strings.Split(rel, "/")
	for _, shown := range mount.EtcShown {
		pattern := strings.Split(shown, "/")
		if len(pattern) < len(parts) {
			continue
		}
		matches := true
		for i, part := range parts {
			if ok, _ := path.Match(pattern[i], part); !ok {
				matches = false
				break
			}
		}
		if matches && len(pattern) == len(parts) {
			entry = true
		} else if matches {
			above = true
		}
	}
	return entry, above
}

// rebuilt says rel is an entry of mount.EtcRebuilt.
func rebuilt(rel string) bool {
	return slices.ContainsFunc(mount.EtcRebuilt, func(pattern string) bool {
		ok, _ := path.Match(pattern, rel)
		return ok
	})
}

// realDirs says every directory from etc down to dir is one, not a link.
func realDirs(etc, dir string) bool {
	for ; dir != etc; dir = filepath.Dir(dir) {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readDirNames lists dir's entries, sorted.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}

// usersOwn lists what of the system's file or directory path the user
// may read and not every user may: what the user's uid or groups open (a
// TLS key for the group ssl-cert, a service's password file made root:dev
// 0640, a file the user owns) is the user's secret as ~/.ssh is, and only
// what every user reads crosses. A directory not every user may enter is
// listed whole, not walked; what the user cannot read is left out (the
// kernel refuses it inside too), as are links (what they lead to is
// judged where it lies), and certificates alone, which are public (a
// corporate CA a variable names may lie there). Each entry is looked at
// through its directory's descriptor; the list is sorted.
func usersOwn(path string) []mount.HostEntry {
	var own []mount.HostEntry
	var entry func(fd int, p string, depth int)
	walk := func(fd int, d string, depth int) {
		f := os.NewFile(uintptr(fd), d)
		defer f.Close()
		for {
			entries, err := f.ReadDir(256)
			for _, e := range entries {
				// The directory's own record of a link's type spares a
				// stat (the certificates' and alternatives' hundreds).
				if e.Type()&os.ModeSymlink == 0 {
					entry(fd, filepath.Join(d, e.Name()), depth)
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
	// entry looks at p, an entry of the directory open on fd.
	entry = func(fd int, p string, depth int) {
		name := filepath.Base(p)
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if unix.Faccessat(fd, name, unix.X_OK, 0) != nil {
				return
			}
			if st.Mode&0o005 != 0o005 || depth >= usersOwnDepth {
				own = append(own, mount.HostEntry{Path: p, Dir: true})
				return
			}
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				own = append(own, mount.HostEntry{Path: p, Dir: true})
				return
			}
			walk(sub, p, depth+1)
		case unix.S_IFREG:
			if st.Mode&0o004 == 0 && unix.Faccessat(fd, name, unix.R_OK, 0) == nil && !certificates(p) {
				own = append(own, mount.HostEntry{Path: p})
			}
		}
	}
	// Its directory is only looked up in, which its search permission
	// allows (/etc/pki made 0711 lists nothing to the user, and hid
	// nothing of what is shown of it).
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fi, err := os.Lstat(path)
		return []mount.HostEntry{{Path: path, Dir: err != nil || fi.IsDir()}}
	}
	defer unix.Close(fd)
	entry(fd, path, 0)
	slices.SortFunc(own, func(a, b mount.HostEntry) int { return strings.Compare(a.Path, b.Path) })
	return own
}

// certificates says the file at path is PEM certificates and nothing
// else.
func certificates(path string) bool {
	b, err := untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), 1<<20)
	return err == nil && onlyCertificates(b)
}
