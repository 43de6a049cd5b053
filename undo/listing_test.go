package undo

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each snapshot's kept list is its tree's as git lists it, and its tree
// is the checkout's: the first, one of a checkout unchanged since (whose
// tree the last snapshot wrote), and one after the checkout changed
// (a file, a link, a nested repository, a name with a tab).
func TestSnapshotListingIsTree(t *testing.T) {
	p := repo(t, 2, 2)
	state := t.TempDir()
	nested := filepath.Join(p.Checkout, "nested")
	os.MkdirAll(nested, 0o755)
	os.WriteFile(filepath.Join(nested, "x"), []byte("x\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "x"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", nested}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	st := storeOf(state, p.Root)
	take := func(at time.Time) Snapshot {
		t.Helper()
		s, err := Take(context.Background(), state, p, at, at.Add(time.Hour), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := os.ReadFile(filepath.Join(st.dir, s.ID+".listing"))
		if err != nil {
			t.Fatal(err)
		}
		listed, err := st.git(context.Background(), p.Checkout, os.DevNull, nil, "ls-tree", "-r", "-z", "--full-tree", s.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := records(string(kept)), records(listed); !slices.Equal(got, want) {
			t.Fatalf("kept list:\n%q\ngit's:\n%q", got, want)
		}
		return s
	}
	names := func(s Snapshot) []string {
		t.Helper()
		entries, err := st.tree(s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for path, e := range entries {
			out = append(out, path+" "+e.mode)
		}
		slices.Sort(out)
		return out
	}
	now := time.Now()
	first := take(now)
	again := take(now.Add(time.Second))
	if again.Tree != first.Tree {
		t.Fatalf("unchanged checkout: tree %s, then %s", first.Tree, again.Tree)
	}
	// Of an unchanged checkout nothing is written again: the list is the
	// first's.
	a, _ := os.Stat(filepath.Join(st.dir, first.ID+".listing"))
	b, _ := os.Stat(filepath.Join(st.dir, again.ID+".listing"))
	if a == nil || b == nil || !os.SameFile(a, b) {
		t.Errorf("the unchanged tree's list was written again")
	}
	os.WriteFile(filepath.Join(p.Checkout, "pkg1", "f0.go"), []byte("changed again\n"), 0o644)
	os.WriteFile(filepath.Join(p.Checkout, "tab\there"), []byte("tab\n"), 0o644)
	os.Symlink("pkg1/f0.go", filepath.Join(p.Checkout, "link"))
	os.Remove(filepath.Join(p.Checkout, "untracked.txt"))
	later := take(now.Add(2 * time.Second))
	if later.Tree == first.Tree {
		t.Fatal("the tree of a changed checkout is the last one's")
	}
	if b, _ := os.ReadFile(filepath.Join(st.dir, later.ID+".listing")); !strings.Contains(string(b), "160000 commit ") {
		t.Errorf("no nested repository in the list: %q", b)
	}
	want := []string{"link 120000", "pkg0/f0.go 100644", "pkg0/f1.go 100644", "pkg1/f0.go 100644", "pkg1/f1.go 100644", "tab\there 100644"}
	if got := names(later); !slices.Equal(got, want) {
		t.Fatalf("tree of the changed checkout: %q, want %q", got, want)
	}
	if b, err := exec.Command("git", "--git-dir", st.gitDir, "cat-file", "-p", later.Tree).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, b)
	}
	if got := take(now.Add(3 * time.Second)); got.Tree != later.Tree {
		t.Fatalf("unchanged checkout: tree %s, then %s", later.Tree, got.Tree)
	}
}

// records are a NUL-separated list's records, sorted.
func records(list string) []string {
	out := strings.Split(strings.TrimSuffix(list, "\x00"), "\x00")
	slices.Sort(out)
	return out
}

// A snapshot of a checkout unchanged since the last takes its entries
// from the last's kept list, not from git ls-files, and comes out as
// git's would; with no kept list, it asks git again.
func TestTakeUnchangedReadsKeptList(t *testing.T) {
	p := repo(t, 2, 2)
	state := t.TempDir()
	// Files older than the index: none is racily clean, which git add
	// would check again and write the index for.
	hour := time.Now().Add(-time.Hour)
	filepath.WalkDir(p.Checkout, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && d.Type().IsRegular() {
			os.Chtimes(path, hour, hour)
		}
		return err
	})
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho \"$*\" >>'"+log+"'\nexec '"+real+"' \"$@\"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	st := storeOf(state, p.Root)
	now := time.Now()
	take := func(at time.Time) (Snapshot, bool) {
		t.Helper()
		os.Remove(log)
		s, err := Take(context.Background(), state, p, at, at.Add(time.Hour), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		ran, _ := os.ReadFile(log)
		return s, strings.Contains(string(ran), "ls-files -z --stage")
	}
	first, _ := take(now)
	again, asked := take(now.Add(time.Second))
	if asked {
		t.Errorf("the unchanged checkout's entries were asked of git")
	}
	if again.Tree != first.Tree || len(again.Unknown) != 0 {
		t.Errorf("unchanged checkout: tree %s, unknown %q; first tree %s", again.Tree, again.Unknown, first.Tree)
	}
	listings, _ := filepath.Glob(filepath.Join(st.dir, "*.listing"))
	for _, l := range listings {
		os.Remove(l)
	}
	third, asked := take(now.Add(2 * time.Second))
	if !asked || third.Tree != first.Tree {
		t.Errorf("with no kept list: git asked %v, tree %s, want %s", asked, third.Tree, first.Tree)
	}
	kept, err := os.ReadFile(filepath.Join(st.dir, third.ID+".listing"))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := st.git(context.Background(), p.Checkout, os.DevNull, nil, "ls-tree", "-r", "-z", "--full-tree", third.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := records(string(kept)), records(listed); !slices.Equal(got, want) {
		t.Fatalf("kept list:\n%q\ngit's:\n%q", got, want)
	}
}
