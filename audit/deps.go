package audit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/untrusted"
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

// A virtualenv's site-packages is the same for Python: git ignores the
// virtualenv, and the host's python there (pytest, the project's own
// imports) runs its packages, and every .pth file in it at each start.
// Its units are its entries; a distribution's record (its .dist-info,
// naming its files) goes with a unit the session changed, so that the
// package counts as not installed and the install command installs it
// again.

// Other tools install or build into a directory of their own that git
// ignores, and run from it later without a look at the sources git
// shows: cargo runs a binary in target/ whose fingerprint says fresh and
// links its libraries, Maven runs target/classes newer than the sources,
// Gradle reuses the task graph its configuration cache in .gradle holds
// and skips a task whose outputs .gradle's history says it made, Composer's vendor/autoload.php is required by
// every PHP entry point, Bundler's vendor/bundle and Yarn's Plug'n'Play
// installs (.yarn/cache, .yarn/unplugged) hold the gems and packages,
// mix runs what _build holds and compiles deps/, SwiftPM, Dart, Stack,
// Cabal and Zig reuse their build directories (Dart's
// .dart_tool/package_config.json says where each package's code lies),
// PDM imports __pypackages__, R loads renv's renv/library, Turborepo
// and Nx restore a build's outputs from their caches (.turbo, .nx) on a
// hash the cache itself holds, Parcel and the Angular CLI take compiled
// code from theirs (.parcel-cache, .angular/cache) for sources unchanged, next start serves .next, bootsnap loads
// Ruby's compiled code from tmp/cache/bootsnap. Each is judged as
// node_modules is.

// buildKind is such a directory: its name, the directory that holds it
// ("" for any; a path matches that directory's last names), a file
// beside it that says which tool made it ("" for none), and the command
// that makes it again there.
type buildKind struct{ name, parent, beside, command string }

// buildKinds are those directories.
var buildKinds = []buildKind{
	{"target", "", "Cargo.toml", "cargo build"},
	{"target", "", "pom.xml", "mvn compile"},
	{".gradle", "", "", "gradle build"},
	{"vendor", "", "composer.json", "composer install"},
	{"bundle", "vendor", "", "bundle install"},
	{"_build", "", "mix.exs", "mix compile"},
	{"deps", "", "mix.exs", "mix deps.get"},
	{".build", "", "Package.swift", "swift build"},
	{".dart_tool", "", "", "dart pub get"},
	{".stack-work", "", "", "stack build"},
	{"dist-newstyle", "", "", "cabal build"},
	{".zig-cache", "", "", "zig build"},
	{"zig-out", "", "", "zig build"},
	{"__pypackages__", "", "", "pdm sync"},
	{".next", "", "", "next build"},
	{".turbo", "", "", "turbo run build"},
	{".nx", "", "", "nx run-many -t build"},
	{".parcel-cache", "", "", "parcel build"},
	{"cache", ".angular", "", "ng build"},
	{"bootsnap", "tmp/cache", "", "bin/rails runner true"},
	{"library", "renv", "", "Rscript -e 'renv::restore()'"},
	{"cache", ".yarn", "", "yarn install --immutable"},
	{"unplugged", ".yarn", "", "yarn install --immutable"},
}

// buildKindOf is the kind of the directory name in the directory parent
// (relative to the root, "" or "." the top), where beside says whether a
// file by that name lies beside it; nil if it is none.
func buildKindOf(parent, name string, beside func(string) bool) *buildKind {
	for i, k := range buildKinds {
		if k.name != name || k.parent != "" && parent != k.parent && !strings.HasSuffix(parent, "/"+k.parent) {
			continue
		}
		if k.beside == "" || beside(k.beside) {
			return &buildKinds[i]
		}
	}
	return nil
}

// InDeps says whether rel, below root, lies in a directory of installed
// dependencies or of a build the audit judges by unit (node_modules,
// site-packages, buildKinds), or is one: what is there is the audit's,
// not a file's own.
func InDeps(root, rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, name := range parts {
		if depsAt(root, strings.Join(parts[:i], "/"), name) {
			return true
		}
	}
	return false
}

// depsAt says whether name, in the directory parent below root, is a
// directory of installed dependencies or of a build (InDeps).
func depsAt(root, parent, name string) bool {
	return depsDirs[name] || buildKindOf(parent, name, func(f string) bool {
		_, err := untrusted.Lstat(root, filepath.Join(parent, f))
		return err == nil
	}) != nil
}

// buildDir says whether name, in the directory n, is one of buildKinds.
func (w *walker) buildDir(n node, name string) bool {
	return buildKindOf(n.rel, name, func(f string) bool {
		var st unix.Stat_t
		return unix.Fstatat(n.fd, f, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	}) != nil
}

// pnpFiles are Yarn's Plug'n'Play resolver and loader, which yarn run and
// every script yarn starts load first: host-run wherever they stand,
// unless git tracks them (a project that commits its installs), when git
// status shows a change.
var pnpFiles = map[string]bool{".pnp.cjs": true, ".pnp.js": true, ".pnp.loader.mjs": true, ".pnp.data.json": true}

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
	python := filepath.Base(n.rel) == sitePackages
	for _, name := range top {
		if depsMetadata[name] && !python {
			continue
		}
		var st unix.Stat_t
		if !python && depsGroup(name) && unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
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
	var owned map[string]bool
	if python {
		owned = owners(n.fd, units, changed)
	}
	for i, u := range units {
		// A file git tracks (a zip of .yarn/cache a project commits) git
		// status shows changed.
		var st unix.Stat_t
		if changed[i] > 0 && unix.Fstatat(n.fd, u, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && w.tracked(filepath.Join(n.rel, u)) {
			continue
		}
		if changed[i] > 0 || owned[u] {
			c.Units = append(c.Units, filepath.Join(c.Dir, u))
			c.Files += changed[i]
		}
	}
	if c.Units != nil {
		slices.Sort(c.Units)
		w.report.Deps = append(w.report.Deps, c)
	}
}

// sitePackages is where a Python installation keeps its packages.
const sitePackages = "site-packages"

// recordLimit bounds a distribution's RECORD read: far beyond a real one's.
const recordLimit = 8 << 20

// owners are the distributions' records in the site-packages fd, among
// units, that name a file of a unit changed counts as changed (or that
// cannot be read: then which package it is cannot be known).
func owners(fd int, units []string, changed []int) map[string]bool {
	touched := map[string]bool{}
	for i, u := range units {
		if changed[i] > 0 {
			touched[u] = true
		}
	}
	owned := map[string]bool{}
	if len(touched) == 0 {
		return owned
	}
	for i, u := range units {
		if changed[i] > 0 || !strings.HasSuffix(u, ".dist-info") {
			continue
		}
		record, err := untrusted.ReadFile("/proc/self/fd/"+strconv.Itoa(fd), filepath.Join(u, "RECORD"), recordLimit)
		if err != nil {
			owned[u] = !errors.Is(err, fs.ErrNotExist)
			continue
		}
		for line := range strings.SplitSeq(string(record), "\n") {
			path, _, _ := strings.Cut(line, ",")
			top, _, _ := strings.Cut(strings.Trim(path, `"`), "/")
			if touched[top] {
				owned[u] = true
				break
			}
		}
	}
	return owned
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
// what was moved aside from the directory of installed dependencies at
// dir, and the directory it runs in: for node_modules, the lockfile beside
// it says which package manager made it; for a virtualenv's
// site-packages, the lockfile of the project holding the virtualenv.
func InstallCommand(dir string) (where, command string) {
	if filepath.Base(dir) == sitePackages {
		return pythonInstall(dir)
	}
	where = filepath.Dir(dir)
	if k := buildKindOf(filepath.Dir(dir), filepath.Base(dir), func(f string) bool {
		_, err := os.Lstat(filepath.Join(where, f))
		return err == nil
	}); k != nil {
		if k.parent != "" {
			for range strings.Count(k.parent, "/") + 1 {
				where = filepath.Dir(where)
			}
		}
		return where, k.command
	}
	// A package Yarn's Plug'n'Play unplugged
	// (.yarn/unplugged/<package>/node_modules) is the project's yarn's.
	if up := filepath.Dir(filepath.Dir(where)); filepath.Base(up) == "unplugged" && filepath.Base(filepath.Dir(up)) == ".yarn" {
		return filepath.Dir(filepath.Dir(up)), "yarn install --immutable"
	}
	for _, c := range []struct{ lock, cmd string }{
		{"pnpm-lock.yaml", "pnpm install --frozen-lockfile"},
		{"yarn.lock", "yarn install --frozen-lockfile"},
		{"bun.lock", "bun install --frozen-lockfile"},
		{"bun.lockb", "bun install --frozen-lockfile"},
		{"package-lock.json", "npm ci"},
		{"npm-shrinkwrap.json", "npm ci"},
	} {
		if _, err := os.Lstat(filepath.Join(where, c.lock)); err == nil {
			return where, c.cmd
		}
	}
	return where, "npm install"
}

// pythonInstall is InstallCommand for site-packages, which lies at
// <virtualenv>/lib/python3.X/site-packages; one that is not a
// virtualenv's (no pyvenv.cfg there) is named by its own directory, with
// the pip on the user's PATH.
func pythonInstall(dir string) (where, command string) {
	venv := filepath.Dir(filepath.Dir(filepath.Dir(dir)))
	where = filepath.Dir(venv)
	pip := filepath.Join(filepath.Base(venv), "bin", "pip")
	if _, err := os.Lstat(filepath.Join(venv, "pyvenv.cfg")); err != nil {
		where, pip = filepath.Dir(dir), "pip"
	}
	for _, c := range []struct{ lock, cmd string }{
		{"uv.lock", "uv sync --frozen"},
		{"poetry.lock", "poetry install"},
		{"pdm.lock", "pdm sync"},
		{"Pipfile.lock", "pipenv sync"},
		{"requirements.txt", pip + " install -r requirements.txt"},
	} {
		if _, err := os.Lstat(filepath.Join(where, c.lock)); err == nil {
			return where, c.cmd
		}
	}
	return where, pip + " install <the packages named above>"
}
