// Package hardlink finds the files of a project that are hard links to
// files outside it, where the host's tools make them (pnpm's and bun's
// node_modules, a uv virtualenv's site-packages, a local clone's git
// objects), and makes each a file of its own: a session writing such a
// file in place would write the store's, the cache's or the other
// repository's too, which the host runs. The project is hostile input:
// every walk goes by directory descriptors, never follows a symlink and
// never opens what it only has to stat.
package hardlink

import (
	"io/fs"
	"iter"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/leafdirs"
)

// place is where a linked file was found, which says whose file it shares.
type place int

const (
	// inPackages are node_modules' packages: pnpm links them from its
	// store, bun from its cache.
	inPackages place = iota
	// inVenv is a virtualenv's site-packages: uv links it from its cache.
	inVenv
	// inObjects are a repository's objects: git clone of a local path
	// links the source repository's.
	inObjects
	// inConda is a conda environment: conda links every package's files
	// from its package cache (conda create -p ./env).
	inConda
	placeCount
)

// why names, for the launch's line, whose files each kind shares.
var why = [placeCount]string{
	inPackages: "pnpm's or bun's store (node_modules)",
	inVenv:     "uv's cache (a virtualenv)",
	inObjects:  "the repository a local clone was made from (git objects)",
	inConda:    "conda's package cache (a conda environment)",
}

// linkedFile is a file Find found with more than one name.
type linkedFile struct {
	// rel is its path beneath the base Find was given.
	rel       string
	dev, ino  uint64
	allocated int64
	kind      place
	// names is how many names it had.
	names uint64
	// marker: Find looks at it to decide whether to walk its place (a
	// package's package.json). Break copies it after the place's other
	// files: a launch stopped in between leaves it a link, and the next
	// one walks the place again (copied first, it left the files after it
	// the store's for good).
	marker bool
}

// Found is what Find found beneath one base directory.
type Found struct {
	base  string
	files []linkedFile
	// leftovers are the copies a launch stopped while copying (kill -9,
	// Ctrl-C) left beside the files, in the places walked: a part of a
	// file, or, stopped after the exchange, the store's file itself.
	leftovers []string
}

// bytes is what a copy of every file found takes on disk.
func (f Found) bytes() int64 {
	var n int64
	for _, file := range f.files {
		n += file.allocated
	}
	return n
}

// nearDepth is how far below the project Find looks for node_modules,
// virtualenvs and repositories: as far as the guards look for nested
// repositories.
const nearDepth = 2

// maxDepth bounds a walk below a place: each level holds a descriptor.
const maxDepth = 48

// Find finds the files beneath base that have a second name, in the places
// the host's tools link from outside: node_modules in base or a directory
// down to two levels below it (a package whose package.json is linked is
// walked whole; .pnpm's packages, scoped ones, nested node_modules), a
// virtualenv there (its site-packages walked whole when a *.dist-info's
// METADATA is linked), a conda environment there (walked whole when a
// file of its lib is linked), and the objects of a git directory there and of
// its submodules' (.git/modules). A file whose every name Find saw (links
// the project holds within itself) is left out. gitDirs are git directories outside base the sandbox writes
// (a linked worktree's repository): their objects are walked too, each as
// a Found of its own. leaves are the statuses of the directories two
// levels below base, which the look for nested repositories reads beside
// this one (nil where none does).
func Find(base string, gitDirs []string, leaves *leafdirs.Statuses) []Found {
	var all []Found
	if f := findNear(base, leaves); len(f.files) > 0 || len(f.leftovers) > 0 {
		all = append(all, f)
	}
	for _, g := range gitDirs {
		f := finder{found: Found{base: g}}
		if d, err := openDir(unix.AT_FDCWD, g); err == nil {
			f.objects(d, "")
			unix.Close(d)
		}
		if f.drop(); len(f.found.files) > 0 || len(f.found.leftovers) > 0 {
			all = append(all, f.found)
		}
	}
	return all
}

func findNear(base string, leaves *leafdirs.Statuses) Found {
	f := finder{found: Found{base: base}, leaves: leaves}
	d, err := openDir(unix.AT_FDCWD, base)
	if err != nil {
		return f.found
	}
	f.near(d, "", 0)
	unix.Close(d)
	f.drop()
	return f.found
}

type finder struct {
	found  Found
	leaves *leafdirs.Statuses
}

// near looks in the directory d (rel beneath base) for the places tools
// link into, and below it down to nearDepth. It closes nothing it was
// given.
func (f *finder) near(d int, rel string, depth int) {
	if !f.places(d, rel) || depth == nearDepth {
		return
	}
	for e := range entries(d) {
		if !e.dir || e.name == "node_modules" || e.name == ".git" {
			continue
		}
		// Most of a tree's directories are at the deepest level: each is
		// looked at from here, and opened only where it holds one of the
		// three names. A directory's link count is 2 and one more for
		// each directory in it, where the filesystem counts them (btrfs
		// says 1): at 2 it holds no node_modules, .git, nor an
		// environment's lib. The reads may pass a symlink put there since
		// the listing: they only say where to look, and the look follows
		// none.
		if depth+1 == nearDepth {
			if st, err := f.leaves.At(d, rel, e.name); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Nlink == 2 {
				continue
			}
			if !isA(d, e.name+"/node_modules", true) && !isA(d, e.name+"/.git", true) && !isA(d, e.name+"/pyvenv.cfg", false) && !isA(d, e.name+"/conda-meta", true) {
				continue
			}
		}
		if c, err := openDir(d, e.name); err == nil {
			f.near(c, join(rel, e.name), depth+1)
			unix.Close(c)
		}
	}
}

// places looks at what the directory d holds that tools link into: its
// node_modules, its .git's objects, and d itself as a virtualenv or a
// conda environment, below which there is nothing more to look for
// (false).
func (f *finder) places(d int, rel string) bool {
	venv := isA(d, "pyvenv.cfg", false)
	if venv {
		f.venv(d, rel)
	}
	conda := isA(d, "conda-meta", true)
	if conda {
		f.conda(d, rel)
	}
	if isA(d, "node_modules", true) {
		if c, err := openDir(d, "node_modules"); err == nil {
			f.nodeModules(c, join(rel, "node_modules"), 0)
			unix.Close(c)
		}
	}
	if isA(d, ".git", true) {
		if c, err := openDir(d, ".git"); err == nil {
			f.objects(c, join(rel, ".git"))
			unix.Close(c)
		}
	}
	return !venv && !conda
}

// nodeModules looks at each package of the node_modules directory d:
// .pnpm's (.pnpm/<pkg>@<version>/node_modules/<name>), scoped ones
// (@scope/<name>) and the rest; a package is linked when its package.json
// is, and is then walked whole. A package's own node_modules (bun's and
// npm's nesting) is looked at the same way.
func (f *finder) nodeModules(d int, rel string, depth int) {
	if depth > 8 {
		return
	}
	for e := range entries(d) {
		if !e.dir || e.name == ".bin" {
			continue
		}
		c, err := openDir(d, e.name)
		if err != nil {
			continue
		}
		switch {
		case e.name == ".pnpm":
			for p := range entries(c) {
				if p.dir && p.name != "node_modules" {
					f.pnpmPackage(c, join(rel, ".pnpm"), p.name, depth)
				}
			}
		case strings.HasPrefix(e.name, "@"):
			for p := range entries(c) {
				if p.dir {
					if pc, err := openDir(c, p.name); err == nil {
						f.pkg(pc, join(rel, e.name+"/"+p.name), depth)
						unix.Close(pc)
					}
				}
			}
		case strings.HasPrefix(e.name, "."):
		default:
			f.pkg(c, join(rel, e.name), depth)
		}
		unix.Close(c)
	}
}

// pnpmPackage looks at the package of the directory entry of .pnpm (d),
// <name>@<version> (a scope's / written +, peers after the version): one
// status read of node_modules/<name>/package.json there, where the name is
// read right; else its node_modules is looked at as any other.
func (f *finder) pnpmPackage(d int, rel, entry string, depth int) {
	name, _, _ := strings.Cut(entry[1:], "@")
	name = strings.ReplaceAll(entry[:1]+name, "+", "/")
	var st unix.Stat_t
	// The read may pass a symlink: it only says where to look, and the
	// look opens each directory without following one.
	if fs.ValidPath(name) && unix.Fstatat(d, entry+"/node_modules/"+name+"/package.json", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		if st.Nlink > 1 {
			if c, err := openPath(d, append([]string{entry, "node_modules"}, strings.Split(name, "/")...)...); err == nil {
				at := join(rel, entry+"/node_modules/"+name)
				f.walkMarked(c, at, inPackages, func(file string) bool { return file == at+"/package.json" })
				unix.Close(c)
			}
		}
		return
	}
	if c, err := openPath(d, entry, "node_modules"); err == nil {
		f.nodeModules(c, join(rel, entry+"/node_modules"), depth+1)
		unix.Close(c)
	}
}

// pkg walks the package directory d whole when its package.json has a
// second name, and else looks in its own node_modules.
func (f *finder) pkg(d int, rel string, depth int) {
	if linkedIn(d, ".", "package.json") {
		f.walkMarked(d, rel, inPackages, func(file string) bool { return file == join(rel, "package.json") })
		return
	}
	if c, err := openDir(d, "node_modules"); err == nil {
		f.nodeModules(c, join(rel, "node_modules"), depth+1)
		unix.Close(c)
	}
}

// venv walks each site-packages of the virtualenv d (lib/python*/) whole
// when a distribution's METADATA there has a second name.
func (f *finder) venv(d int, rel string) {
	lib, err := openDir(d, "lib")
	if err != nil {
		return
	}
	defer unix.Close(lib)
	for py := range entries(lib) {
		if !py.dir || !strings.HasPrefix(py.name, "python") {
			continue
		}
		sp, err := openPath(lib, py.name, "site-packages")
		if err != nil {
			continue
		}
		for e := range entries(sp) {
			if e.dir && strings.HasSuffix(e.name, ".dist-info") && linkedIn(sp, e.name, "METADATA") {
				at := join(rel, "lib/"+py.name+"/site-packages")
				f.walkMarked(sp, at, inVenv, func(file string) bool {
					in, ok := strings.CutPrefix(file, at+"/")
					dist, name, _ := strings.Cut(in, "/")
					return ok && strings.HasSuffix(dist, ".dist-info") && name == "METADATA"
				})
				break
			}
		}
		unix.Close(sp)
	}
}

// maxCondaLook is how many of a conda environment's lib files are looked
// at for a second name: conda links every file of an environment or none
// (it copies across filesystems, and under always_copy), but those it
// rewrites for the environment's prefix (a libtool .la there).
const maxCondaLook = 256

// conda walks the conda environment d whole when a file of its lib has a
// second name.
func (f *finder) conda(d int, rel string) {
	lib, err := openDir(d, "lib")
	if err != nil {
		return
	}
	defer unix.Close(lib)
	looked := map[string]bool{}
	linked := false
	for e := range entries(lib) {
		if e.dir || !e.maybeRegular {
			continue
		}
		looked[join(rel, "lib/"+e.name)] = true
		linked = linked || linkedIn(lib, ".", e.name)
		if len(looked) == maxCondaLook {
			break
		}
	}
	if linked {
		f.walkMarked(d, rel, inConda, func(file string) bool { return looked[file] })
	}
}

// objects walks the git directory d's objects whole: loose objects, packs
// and what objects/info holds are all linked by a local clone; and so its
// submodules' git directories (modules/<name>, a name that may hold
// slashes), which a submodule cloned from a local path links too.
func (f *finder) objects(d int, rel string) {
	if c, err := openDir(d, "objects"); err == nil {
		f.walk(c, join(rel, "objects"), inObjects, 0)
		unix.Close(c)
	}
	if c, err := openDir(d, "modules"); err == nil {
		f.modules(c, join(rel, "modules"), 0)
		unix.Close(c)
	}
}

// modules looks for the submodules' git directories below d.
func (f *finder) modules(d int, rel string, depth int) {
	if depth > 8 {
		return
	}
	for e := range entries(d) {
		if !e.dir {
			continue
		}
		c, err := openDir(d, e.name)
		if err != nil {
			continue
		}
		if isA(c, "objects", true) {
			f.objects(c, join(rel, e.name))
		} else {
			f.modules(c, join(rel, e.name), depth+1)
		}
		unix.Close(c)
	}
}

// walkMarked walks d as walk does, marking the files isMarker names.
func (f *finder) walkMarked(d int, rel string, kind place, isMarker func(file string) bool) {
	from := len(f.found.files)
	f.walk(d, rel, kind, 0)
	for i := range f.found.files[from:] {
		file := &f.found.files[from+i]
		file.marker = isMarker(file.rel)
	}
}

// walk adds every regular file below d with a second name.
func (f *finder) walk(d int, rel string, kind place, depth int) {
	for e := range entries(d) {
		if e.dir {
			if depth < maxDepth {
				if c, err := openDir(d, e.name); err == nil {
					f.walk(c, join(rel, e.name), kind, depth+1)
					unix.Close(c)
				}
			}
			continue
		}
		if !e.maybeRegular {
			continue
		}
		if strings.HasPrefix(e.name, copyPrefix) {
			f.found.leftovers = append(f.found.leftovers, join(rel, e.name))
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(d, e.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink < 2 {
			continue
		}
		f.found.files = append(f.found.files, linkedFile{
			rel: join(rel, e.name), dev: st.Dev, ino: st.Ino, allocated: st.Blocks * 512, kind: kind, names: uint64(st.Nlink),
		})
	}
}

// drop leaves out the files whose every name was found: the project links
// them within itself, and a copy would only take room.
func (f *finder) drop() {
	type id struct{ dev, ino uint64 }
	seen := map[id]uint64{}
	for _, file := range f.found.files {
		seen[id{file.dev, file.ino}]++
	}
	f.found.files = slices.DeleteFunc(f.found.files, func(file linkedFile) bool {
		return seen[id{file.dev, file.ino}] >= file.names
	})
}

type entry struct {
	name              string
	dir, maybeRegular bool
}

// entries are the directory d's entries, by their types as the
// directory gives them (a symlink is never a directory here), read a
// batch at a time: a directory of a million names costs the memory of a
// batch.
func entries(d int) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		dup, err := unix.Dup(d)
		if err != nil {
			return
		}
		unix.Seek(dup, 0, 0)
		dir := os.NewFile(uintptr(dup), "")
		defer dir.Close()
		for {
			batch, err := dir.ReadDir(256)
			for _, de := range batch {
				t := de.Type()
				if !yield(entry{name: de.Name(), dir: t.IsDir(), maybeRegular: t.IsRegular()}) {
					return
				}
			}
			if err != nil || len(batch) == 0 {
				return
			}
		}
	}
}

// isA says whether name beneath d is a directory (dir), or something else.
func isA(d int, name string, dir bool) bool {
	var st unix.Stat_t
	return unix.Fstatat(d, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && (st.Mode&unix.S_IFMT == unix.S_IFDIR) == dir
}

// linkedIn says whether dir/name beneath d (dir one component, "." for
// d itself) is a regular file with a second name.
func linkedIn(d int, dir, name string) bool {
	c := d
	if dir != "." {
		var err error
		if c, err = openDir(d, dir); err != nil {
			return false
		}
		defer unix.Close(c)
	}
	var st unix.Stat_t
	return unix.Fstatat(c, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1
}

// openPath opens the directory beneath d its components name, each
// opened without following a symlink.
func openPath(d int, components ...string) (int, error) {
	cur := d
	for _, c := range components {
		next, err := openDir(cur, c)
		if cur != d {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// openDir opens the directory name beneath d, following no symlink.
func openDir(d int, name string) (int, error) {
	return unix.Openat(d, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}
