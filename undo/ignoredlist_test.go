package undo

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIgnoredListDepsWhole: the start's list of ignored files is git's
// whole list but for each ignored node_modules, listed as itself without
// its files (which the exit audit judges): ignored files beside tracked
// ones, in an untracked directory, in an ignored directory (a node_modules
// inside it too), re-included by a negation, and in node_modules at any
// level.
func TestIgnoredListDepsWhole(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("node_modules/\n*.log\nbuild/\n.venv/\ndist/*\n!dist/keep.js\n"), 0o644)
	for _, rel := range []string{
		"a.log", "pkg0/b.log", "u/keep", "u/x.log", "u/w/y.log",
		"build/obj/a.o", "build/node_modules/q/i.js", ".venv/bin/activate",
		"dist/bundle.js", "dist/keep.js",
		"node_modules/a/index.js", "node_modules/.bin/a", "node_modules/@s/b/x.js",
		"packages/p/node_modules/c/i.js", "packages/p/src.js",
	} {
		path := filepath.Join(p.Checkout, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("x\n"), 0o644)
	}
	git := exec.Command("git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	git.Dir = p.Checkout
	out, err := git.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if i := strings.Index(rel, "node_modules/"); i >= 0 && !strings.HasPrefix(rel, "build/") {
			rel = rel[:i+len("node_modules/")]
		}
		want = append(want, rel)
	}
	slices.Sort(want)
	want = slices.Compact(want)

	s, err := Take(context.Background(), state, p, time.Now(), time.Now(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got, limited := storeOf(state, p.Root).ignoredAtStart(s.ID)
	slices.Sort(got)
	if limited || !slices.Equal(got, want) {
		t.Errorf("the start listed (limited %v)\n%q\nwant\n%q", limited, got, want)
	}
	for _, rel := range got {
		if strings.Contains(rel, "node_modules/") && path.Base(rel) != "node_modules" && !strings.HasPrefix(rel, "build/") {
			t.Errorf("listed a file of node_modules: %s", rel)
		}
	}
}

// TestRecordChangesDepsListedWhole: of a node_modules the start listed
// whole, what the session changed or made there is listed as changed
// (ignored), one it removed is named removed, and a link it put in place
// of the directory above one is taken for what the host runs.
func TestRecordChangesDepsListedWhole(t *testing.T) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("node_modules/\n"), 0o644)
	for _, rel := range []string{"node_modules/a/index.js", "node_modules/b/index.js", "web/node_modules/c/i.js", "web/keep.txt", "lib/node_modules/d/i.js", "lib/keep.txt"} {
		path := filepath.Join(p.Checkout, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("x\n"), 0o644)
	}
	since := after(t, state, p.Checkout)
	if _, err := Take(context.Background(), state, p, time.Now(), since, nil, false); err != nil {
		t.Fatal(err)
	}
	began := after(t, state, p.Checkout)
	os.WriteFile(filepath.Join(p.Checkout, "node_modules", "a", "index.js"), []byte("planted\n"), 0o644)
	os.MkdirAll(filepath.Join(p.Checkout, "node_modules", "new"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "node_modules", "new", "i.js"), []byte("x\n"), 0o644)
	os.RemoveAll(filepath.Join(p.Checkout, "web", "node_modules"))
	os.RemoveAll(filepath.Join(p.Checkout, "lib"))
	os.MkdirAll(filepath.Join(p.Checkout, "elsewhere"), 0o755)
	os.Symlink("elsewhere", filepath.Join(p.Checkout, "lib"))
	c, err := RecordChanges(state, p, began, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]string{}
	for _, pc := range c.Paths {
		if pc.Ignored {
			changes[pc.Path] = pc.Change
		}
	}
	for rel, want := range map[string]string{
		"node_modules/a/index.js": "changed", "node_modules/new/i.js": "changed",
		"web/node_modules": "removed", "lib/node_modules": "removed",
	} {
		if changes[rel] != want {
			t.Errorf("%s: %q, want %q (ignored changes: %v)", rel, changes[rel], want, changes)
		}
	}
	if _, ok := changes["node_modules"]; ok {
		t.Errorf("a node_modules still there taken for removed: %v", changes)
	}
	if !slices.Contains(c.HostRun, filepath.Join(p.Checkout, "lib")) {
		t.Errorf("the link in place of the directory above a node_modules is not taken for host-run: %q", c.HostRun)
	}
}

// TestIgnoredListManyDirs: past ignoredDirsLimit ignored directories, or
// ignoredDirsBytes of their names (a session's, left to hold every later
// start: git's command line would be refused), git is not given each as a
// pathspec: it lists every ignored file, node_modules' too.
func TestIgnoredListManyDirs(t *testing.T) {
	t.Run("many", func(t *testing.T) { ignoredListPast(t, ignoredDirsLimit+1, 1) })
	t.Run("long", func(t *testing.T) { ignoredListPast(t, 100, 12) })
}

// ignoredListPast lists the ignored files of n ignored directories, each
// holding a file, at d/N below levels of 250-byte names, each level
// holding a file git does not ignore (else git lists it as ignored too),
// beside an ignored node_modules.
func ignoredListPast(t *testing.T, n, levels int) {
	p := repo(t, 1, 1)
	state := t.TempDir()
	os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("node_modules/\nout/\n"), 0o644)
	for i := range n {
		dir := filepath.Join(p.Checkout, "d", strconv.Itoa(i))
		for range levels {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644)
			dir = filepath.Join(dir, strings.Repeat("d", 250))
		}
		dir = filepath.Join(filepath.Dir(dir), "out")
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "o"), nil, 0o644)
	}
	os.MkdirAll(filepath.Join(p.Checkout, "node_modules", "a"), 0o755)
	os.WriteFile(filepath.Join(p.Checkout, "node_modules", "a", "i.js"), nil, 0o644)
	s, err := Take(context.Background(), state, p, time.Now(), time.Now(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := storeOf(state, p.Root).ignoredAtStart(s.ID)
	if len(got) != n+1 || !slices.Contains(got, "node_modules/a/i.js") {
		t.Errorf("listed %d paths (node_modules/a/i.js among them: %v), want every ignored file, %d", len(got), slices.Contains(got, "node_modules/a/i.js"), n+1)
	}
}
