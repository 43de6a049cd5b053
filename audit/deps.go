package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/parallel"
)

// Installed dependencies (node_modules) are ignored by git, and the host
// runs them: npm test runs a package's runner, and every command an npm
// script names is looked up in node_modules/.bin first. So what the
// session installed, replaced or changed there is as much its code as a
// planted hook, and git shows none of it. The exit audit judges each unit
// a package manager installs (a package, a scope's package, a link in
// .bin, pnpm's store entries) and sets aside every one the session
// created or changed, whole; the user installs them again from the
// lockfile, which git shows, with the one command the exit names.

// DepsChange is what a session changed in one directory of installed
// dependencies.
type DepsChange struct {
	// Dir is the directory (…/node_modules); Units are the units the
	// session created or changed, to be moved aside whole; Files counts
	// their files and directories that are new or changed.
	Dir   string
	Units []string
	Files int
}

// depsMetadata are the files a package manager keeps at the top of
// node_modules about what it installed, which nothing runs.
var depsMetadata = map[string]bool{".package-lock.json": true, ".modules.yaml": true, ".yarn-integrity": true, ".yarn-state.yml": true}

// depsGroups are the directories at the top of node_modules whose entries
// are the units: a scope's packages, the runners' links, pnpm's store.
func depsGroup(name string) bool {
	return strings.HasPrefix(name, "@") || name == ".bin" || name == ".pnpm"
}

// deps judges the directory of installed dependencies n at the end of a
// session: each unit whose status, or that of anything below it, changed
// at or after the start. It reads the status of every entry (a file
// rewritten in place changes nothing above it), the units side by side.
func (w *walker) deps(n node) {
	var units []string
	top, err := readNames(n.fd)
	if err != nil {
		w.notExamined(w.abs(n.rel), err.Error())
		return
	}
	for _, name := range top {
		if depsMetadata[name] {
			continue
		}
		var st unix.Stat_t
		if depsGroup(name) && unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			fd, err := unix.Openat(n.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
			if err == nil {
				names, err := readNames(fd)
				unix.Close(fd)
				if err == nil {
					for _, sub := range names {
						units = append(units, filepath.Join(name, sub))
					}
					continue
				}
			}
		}
		units = append(units, name)
	}
	// What the walk beside the audit read, if it read that much, is not
	// read again.
	var walked Statuses
	if w.walked != nil {
		if s := w.walked(); s != nil && s.Since().Equal(w.since) {
			walked = s
		}
	}
	changed := make([]int, len(units))
	parallel.Each(len(units), func(i int) {
		if walked != nil {
			if n, ok := walked.ChangedBelow(filepath.Join(n.rel, units[i])); ok {
				changed[i] = n
				return
			}
		}
		changed[i] = w.changedBelow(n.fd, units[i], 0, make([]byte, 8<<10))
	})
	c := DepsChange{Dir: w.abs(n.rel)}
	for i, u := range units {
		if changed[i] > 0 {
			c.Units = append(c.Units, filepath.Join(c.Dir, u))
			c.Files += changed[i]
		}
	}
	if c.Units != nil {
		slices.Sort(c.Units)
		w.report.Deps = append(w.report.Deps, c)
	}
}

// changedBelow counts what at rel beneath the directory fd, itself and
// everything below it, has a status from at or after the start; one that
// cannot be examined counts. It reads directories into buf.
func (w *walker) changedBelow(fd int, rel string, depth int, buf []byte) int {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, rel, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0 // gone
	}
	changed := 0
	if w.new(&st) {
		changed = 1
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return changed
	}
	if depth > maxDepth {
		return changed + 1
	}
	sub, err := unix.Openat(fd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return changed + 1
	}
	defer unix.Close(sub)
	names, err := readNamesInto(sub, buf)
	if err != nil {
		return changed + 1
	}
	w.entries.Add(int64(len(names)))
	for _, name := range names {
		changed += w.changedBelow(sub, name, depth+1, buf)
	}
	return changed
}

// readNames lists the directory fd's entries, from its start.
func readNames(fd int) ([]string, error) {
	return readNamesInto(fd, make([]byte, 8<<10))
}

// readNamesInto is readNames, reading through buf.
func readNamesInto(fd int, buf []byte) ([]string, error) {
	var names []string
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	for {
		got, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if got <= 0 {
			return names, nil
		}
		for b := buf[:got]; len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			name = name[:max(bytes.IndexByte(name, 0), 0)]
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." && s != "" {
				names = append(names, s)
			}
		}
	}
}

// InstallCommand is the command that installs again, from its lockfile,
// what was moved aside from the node_modules at dir: the lockfile beside
// it says which package manager made it.
func InstallCommand(dir string) string {
	parent := filepath.Dir(dir)
	for _, c := range []struct{ lock, cmd string }{
		{"pnpm-lock.yaml", "pnpm install --frozen-lockfile"},
		{"yarn.lock", "yarn install --frozen-lockfile"},
		{"bun.lock", "bun install --frozen-lockfile"},
		{"bun.lockb", "bun install --frozen-lockfile"},
		{"package-lock.json", "npm ci"},
		{"npm-shrinkwrap.json", "npm ci"},
	} {
		if _, err := os.Lstat(filepath.Join(parent, c.lock)); err == nil {
			return c.cmd
		}
	}
	return "npm install"
}
