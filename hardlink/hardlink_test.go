package hardlink

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/internal/testfs"
)

// linkIn makes rel in proj a second name of a new file in store, as a
// package manager links from its store.
func linkIn(t *testing.T, store, proj, rel string) {
	t.Helper()
	src := filepath.Join(store, rel)
	testfs.Write(t, src, "the store's "+rel+"\n")
	if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(src, filepath.Join(proj, rel)); err != nil {
		t.Fatal(err)
	}
}

func rels(found []Found) []string {
	var r []string
	for _, f := range found {
		for _, file := range f.files {
			r = append(r, file.rel)
		}
	}
	slices.Sort(r)
	return r
}

func nlink(t *testing.T, path string) uint64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	return uint64(st.Nlink)
}

// TestFindAndBreak: the layouts the tools make are found, and each file
// becomes the project's own, with its content, mode and time; the
// store's file keeps its bytes when the project's is then written in
// place.
func TestFindAndBreak(t *testing.T) {
	dir := t.TempDir()
	store, proj := filepath.Join(dir, "store"), filepath.Join(dir, "p")
	linked := []string{
		"node_modules/.pnpm/a@1.0.0/node_modules/a/package.json",
		"node_modules/.pnpm/a@1.0.0/node_modules/a/lib/deep/x.js",
		"node_modules/.pnpm/@s+b@2.0.0_peer@1/node_modules/@s/b/package.json",
		"node_modules/c/package.json",
		"node_modules/@s/d/package.json",
		"node_modules/e/node_modules/f/package.json",
		"apps/web/node_modules/g/package.json",
		".venv/lib/python3.12/site-packages/six.py",
		".venv/lib/python3.12/site-packages/six-1.16.0.dist-info/METADATA",
		"env/lib/libz.so.1.3",
		"env/bin/python3.12",
		"ml/conda/lib/python3.12/os.py",
		".git/objects/ab/cdef0123",
		".git/objects/pack/pack-1.pack",
		"sub/repo/.git/objects/info/commit-graph",
		".git/modules/libs/x/objects/pack/pack-2.idx",
	}
	for _, rel := range linked {
		linkIn(t, store, proj, rel)
	}
	// Not linked: a package whose package.json has one name (the rest is
	// not looked at), and a file outside the places looked in.
	testfs.Write(t, filepath.Join(proj, "node_modules/e/package.json"), "{}")
	linkIn(t, store, proj, "node_modules/h/index.js")
	testfs.Write(t, filepath.Join(proj, "node_modules/h/package.json"), "{}")
	linkIn(t, store, proj, "src/main.js")
	if err := os.Symlink(".pnpm/a@1.0.0/node_modules/a", filepath.Join(proj, "node_modules/a")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(proj, ".venv/pyvenv.cfg"), "home = /usr/bin\n")
	// conda environments: one in the project, one two levels down; a file
	// conda rewrote for the prefix is the environment's own; one made
	// with copies is not walked.
	for _, env := range []string{"env", "ml/conda", "copied"} {
		testfs.Write(t, filepath.Join(proj, env, "conda-meta/history"), "==> 2026-11-29 <==\n")
		testfs.Write(t, filepath.Join(proj, env, "lib/libtool.la"), "prefix\n")
	}
	linkIn(t, store, proj, "ml/conda/lib/libffi.so.8")
	linked = append(linked, "ml/conda/lib/libffi.so.8")
	linkIn(t, store, proj, "copied/bin/tool")
	objects := filepath.Join(proj, ".git/objects/ab/cdef0123")
	os.Chmod(objects, 0o444)
	old := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
	os.Chtimes(objects, old, old)

	found := Find(proj, nil, nil)
	want := slices.Clone(linked)
	slices.Sort(want)
	if got := rels(found); !slices.Equal(got, want) {
		t.Fatalf("found %q\nwant %q", got, want)
	}
	copied, _, err := Break(found)
	if err != nil {
		t.Fatal(err)
	}
	if copied != len(linked) {
		t.Errorf("copied %d files, want %d", copied, len(linked))
	}
	fi, err := os.Stat(objects)
	if err != nil || fi.Mode().Perm() != 0o444 || !fi.ModTime().Equal(old) {
		t.Errorf("the copy of an object: %v %v, want mode 0444 and time %v", fi.Mode(), fi.ModTime(), old)
	}
	for _, rel := range linked {
		p := filepath.Join(proj, rel)
		if n := nlink(t, p); n != 1 {
			t.Errorf("%s has %d names after Break", rel, n)
		}
		if b, _ := os.ReadFile(p); string(b) != "the store's "+rel+"\n" {
			t.Errorf("%s holds %q", rel, b)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			os.Chmod(p, 0o644)
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("PLANTED")
		f.Close()
		if b, _ := os.ReadFile(filepath.Join(store, rel)); string(b) != "the store's "+rel+"\n" {
			t.Errorf("the store's %s holds %q", rel, b)
		}
	}
	if again := Find(proj, nil, nil); len(again) != 0 {
		t.Errorf("the next launch finds %q", rels(again))
	}
	if left, _ := filepath.Glob(filepath.Join(proj, "node_modules/.pnpm/a@1.0.0/node_modules/a/.claudebox-*")); len(left) > 0 {
		t.Errorf("copies left beside: %q", left)
	}
}

// TestFindGitDirs: a linked worktree's repository, outside the project,
// has its objects looked at too.
func TestFindGitDirs(t *testing.T) {
	dir := t.TempDir()
	store, repo := filepath.Join(dir, "store"), filepath.Join(dir, "repo.git")
	linkIn(t, store, repo, "objects/ab/cd")
	found := Find(filepath.Join(dir, "empty"), []string{repo}, nil)
	if len(found) != 1 || found[0].base != repo || !slices.Equal(rels(found), []string{"objects/ab/cd"}) {
		t.Errorf("found %+v", found)
	}
}

// TestFindHostile: what a session can leave in the places looked in.
// A symlink in place of a package's directory, of node_modules, of a
// virtualenv's lib or of .git leads out of the project: nothing there is
// found (the store's package is not the project's to copy). A FIFO named
// package.json or among a linked package's files is never opened, and
// not taken. Files linked only within the project are left as they are.
func TestFindHostile(t *testing.T) {
	dir := t.TempDir()
	store, proj, out := filepath.Join(dir, "store"), filepath.Join(dir, "p"), filepath.Join(dir, "outside")
	linkIn(t, store, out, "pkg/package.json")
	linkIn(t, store, out, "pkg/index.js")
	linkIn(t, store, out, "objects/ab/cd")
	linkIn(t, store, out, "lib/python3.12/site-packages/x-1.dist-info/METADATA")
	for link, target := range map[string]string{
		"node_modules/.pnpm/x@1/node_modules/x": filepath.Join(out, "pkg"),
		"node_modules/y":                        filepath.Join(out, "pkg"),
		"nested/node_modules":                   filepath.Join(out),
		".venv/lib":                             filepath.Join(out, "lib"),
		".git":                                  out,
		"deep/.git/objects":                     filepath.Join(out, "objects"),
	} {
		p := filepath.Join(proj, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	testfs.Write(t, filepath.Join(proj, ".venv/pyvenv.cfg"), "")
	os.MkdirAll(filepath.Join(proj, "node_modules/z"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(proj, "node_modules/z/package.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkIn(t, store, proj, "node_modules/w/package.json")
	if err := syscall.Mkfifo(filepath.Join(proj, "node_modules/w/fifo.js"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two names, both in the project.
	testfs.Write(t, filepath.Join(proj, "node_modules/v/package.json"), "{}")
	if err := os.Link(filepath.Join(proj, "node_modules/v/package.json"), filepath.Join(proj, "node_modules/v/copy.json")); err != nil {
		t.Fatal(err)
	}

	done := make(chan []Found, 1)
	go func() { done <- Find(proj, nil, nil) }()
	var found []Found
	select {
	case found = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Find waits on a FIFO")
	}
	if got := rels(found); !slices.Equal(got, []string{"node_modules/w/package.json"}) {
		t.Errorf("found %q", got)
	}
	if _, _, err := Break(found); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"pkg/package.json", "pkg/index.js", "objects/ab/cd", "lib/python3.12/site-packages/x-1.dist-info/METADATA"} {
		if n := nlink(t, filepath.Join(out, rel)); n != 2 {
			t.Errorf("outside/%s has %d names: Break followed a link to it", rel, n)
		}
	}
}

// TestBreakReplaced: between the probe and the copy, a session of an
// enclosing project (or the host's tool) replaces what was found: a file
// by one of a single name (left as it is), a directory by a symlink to
// one outside (not followed: its linked file stays linked).
func TestBreakReplaced(t *testing.T) {
	dir := t.TempDir()
	store, proj, out := filepath.Join(dir, "store"), filepath.Join(dir, "p"), filepath.Join(dir, "outside")
	linkIn(t, store, proj, "node_modules/a/package.json")
	linkIn(t, store, proj, "node_modules/a/index.js")
	linkIn(t, store, proj, "node_modules/b/package.json")
	linkIn(t, store, out, "b/package.json")
	found := Find(proj, nil, nil)
	if len(rels(found)) != 3 {
		t.Fatalf("found %q", rels(found))
	}
	// a/index.js: now a file of its own, written by someone else.
	a := filepath.Join(proj, "node_modules/a/index.js")
	testfs.Write(t, a+".new", "new\n")
	if err := os.Rename(a+".new", a); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(proj, "node_modules/b")
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "b"), b); err != nil {
		t.Fatal(err)
	}
	copied, _, err := Break(found)
	if err != nil {
		t.Fatal(err)
	}
	if copied != 1 {
		t.Errorf("copied %d files, want the one still linked", copied)
	}
	if bs, _ := os.ReadFile(a); string(bs) != "new\n" {
		t.Errorf("the file that replaced the one found holds %q", bs)
	}
	if n := nlink(t, filepath.Join(out, "b/package.json")); n != 2 {
		t.Errorf("the file behind the symlink has %d names", n)
	}
}

// TestExchangeSeesReplacement: the name is given another file between
// the copy and its rename: the copy does not replace that file, which
// keeps the name.
func TestExchangeSeesReplacement(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "f"), "found\n")
	testfs.Write(t, filepath.Join(dir, "copy"), "found\n")
	var was unix.Stat_t
	if err := unix.Lstat(filepath.Join(dir, "f"), &was); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(dir, "new"), "written meanwhile\n")
	if err := os.Rename(filepath.Join(dir, "new"), filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(d)
	if err := exchange(d, "copy", "f", was); !errors.Is(err, ErrChanged) {
		t.Errorf("exchange: %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "written meanwhile\n" {
		t.Errorf("f holds %q", b)
	}
}

// TestBreakSparse: a sparse file of a terabyte with a second name is
// copied as it is, its holes left holes.
func TestBreakSparse(t *testing.T) {
	dir := t.TempDir()
	store, proj := filepath.Join(dir, "store"), filepath.Join(dir, "p")
	linkIn(t, store, proj, ".git/objects/pack/pack-1.pack")
	big := filepath.Join(proj, ".git/objects/pack/pack-1.pack")
	f, err := os.OpenFile(big, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("END"), 1<<40); err != nil {
		t.Skipf("no sparse files of a terabyte here: %v", err)
	}
	f.Close()
	found := Find(proj, nil, nil)
	if _, _, err := Break(found); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(big, &st); err != nil || st.Blocks*512 > 1<<20 {
		t.Errorf("the copy takes %d bytes on disk", st.Blocks*512)
	}
	fi, err := os.Stat(big)
	if err != nil || fi.Size() != 1<<40+3 || nlink(t, big) != 1 {
		t.Fatalf("the copy: %v, %v", fi, err)
	}
	g, _ := os.Open(big)
	defer g.Close()
	head, tail := make([]byte, len("the store's")), make([]byte, 3)
	g.ReadAt(head, 0)
	g.ReadAt(tail, 1<<40)
	if string(head) != "the store's" || string(tail) != "END" {
		t.Errorf("the copy holds %q ... %q", head, tail)
	}
}

// TestBreakStoppedAnywhere: a launch stopped after any number of copies
// (kill -9, Ctrl-C) leaves every file it did not copy for the next
// launch to find: a package's package.json, a virtualenv's METADATA and
// the files of a conda environment's lib that say it is linked (each
// sorting amid their place's files) are copied after the rest.
func TestBreakStoppedAnywhere(t *testing.T) {
	linked := []string{
		"node_modules/a/index.js",
		"node_modules/a/package.json",
		"node_modules/a/src/z.js",
		".venv/lib/python3.12/site-packages/a.py",
		".venv/lib/python3.12/site-packages/six-1.16.0.dist-info/METADATA",
		".venv/lib/python3.12/site-packages/six.py",
		"env/bin/python3.12",
		"env/lib/libz.so.1.3",
		"env/share/doc",
	}
	for stop := range len(linked) {
		dir := t.TempDir()
		store, proj := filepath.Join(dir, "store"), filepath.Join(dir, "p")
		for _, rel := range linked {
			linkIn(t, store, proj, rel)
		}
		testfs.Write(t, filepath.Join(proj, ".venv/pyvenv.cfg"), "home = /usr/bin\n")
		testfs.Write(t, filepath.Join(proj, "env/conda-meta/history"), "")
		found := Find(proj, nil, nil)
		if len(found) != 1 {
			t.Fatalf("found %q", rels(found))
		}
		left := map[string]bool{}
		for i, f := range copyOrder(found[0].files) {
			if i >= stop {
				left[f.rel] = true
				continue
			}
			d, err := unix.Open(filepath.Join(proj, filepath.Dir(f.rel)), unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = breakLink(d, filepath.Base(f.rel))
			unix.Close(d)
			if err != nil {
				t.Fatal(err)
			}
		}
		var want []string
		for rel := range left {
			want = append(want, rel)
		}
		slices.Sort(want)
		if got := rels(Find(proj, nil, nil)); !slices.Equal(got, want) {
			t.Errorf("stopped after %d copies, the next launch finds %q\nwant %q", stop, got, want)
		}
	}
}

// TestRemoveLeftovers: the copies a stopped launch left beside a linked
// package's files are removed; a running launch's are left to it.
func TestRemoveLeftovers(t *testing.T) {
	dir := t.TempDir()
	store, proj := filepath.Join(dir, "store"), filepath.Join(dir, "p")
	linkIn(t, store, proj, "node_modules/a/package.json")
	stopped := filepath.Join(proj, "node_modules/a", copyPrefix+"2147483646-0")
	running := filepath.Join(proj, "node_modules/a", copyPrefix+strconv.Itoa(os.Getpid())+"-0")
	testfs.Write(t, stopped, "part")
	testfs.Write(t, running, "part")
	if removed := RemoveLeftovers(Find(proj, nil, nil)); !slices.Equal(removed, []string{stopped}) {
		t.Errorf("removed %q, want %q", removed, stopped)
	}
	if _, err := os.Lstat(running); err != nil {
		t.Errorf("a running launch's copy: %v", err)
	}
}
