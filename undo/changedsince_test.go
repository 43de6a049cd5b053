package undo

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// changedSince reads each directory once, from the one above it: what
// lies under a directory the session swapped for a link (to a copy whose
// files keep their old statuses), a file or a FIFO is changed, as is
// what it changed or removed, and a name git never writes; nothing else
// is, in any order the paths come in, split among the workers anywhere.
func TestChangedSinceOpensEachDirectoryFromItsParent(t *testing.T) {
	checkout := t.TempDir()
	var paths []string
	for _, d := range []string{"kept", "kept/deep", "linked", "filed", "fifo", "moved/away"} {
		os.MkdirAll(filepath.Join(checkout, d), 0o755)
		for _, f := range []string{"a.go", "b.go", "c.go"} {
			os.WriteFile(filepath.Join(checkout, d, f), []byte("package x\n"), 0o644)
			paths = append(paths, d+"/"+f)
		}
	}
	os.WriteFile(filepath.Join(checkout, "top.go"), []byte("package x\n"), 0o644)
	paths = append(paths, "top.go", "../"+filepath.Base(checkout)+"/top.go", "kept//a.go", "kept/./a.go")
	time.Sleep(20 * time.Millisecond) // past the filesystem clock's tick
	since, err := Mark(t.TempDir(), checkout)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	// The session, before the snapshot reads: a directory moved and a
	// link to it in its place (its files' statuses are as they were), a
	// directory replaced by a file and one by a FIFO, a file changed and
	// one removed.
	os.Rename(filepath.Join(checkout, "linked"), filepath.Join(checkout, "moved", "linked"))
	os.Symlink(filepath.Join(checkout, "moved", "linked"), filepath.Join(checkout, "linked"))
	os.RemoveAll(filepath.Join(checkout, "filed"))
	os.WriteFile(filepath.Join(checkout, "filed"), nil, 0o644)
	os.RemoveAll(filepath.Join(checkout, "fifo"))
	if err := unix.Mkfifo(filepath.Join(checkout, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(checkout, "kept", "deep", "b.go"), []byte("the session's\n"), 0o644)
	os.Remove(filepath.Join(checkout, "moved", "away", "c.go"))
	want := []string{
		"../" + filepath.Base(checkout) + "/top.go",
		"fifo/a.go", "fifo/b.go", "fifo/c.go",
		"filed/a.go", "filed/b.go", "filed/c.go",
		"kept/./a.go", "kept//a.go", "kept/deep/b.go",
		"linked/a.go", "linked/b.go", "linked/c.go",
		"moved/away/c.go",
	}
	for i := range 20 {
		order := slices.Clone(paths)
		if i > 0 {
			rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		} else {
			slices.Sort(order)
		}
		got := changedSince(context.Background(), checkout, order, since)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("changed, paths in the order %q:\n%q\nwant\n%q", order, got, want)
		}
	}
}

// A file the host changed after the last snapshot, which the session puts
// back as the store's index holds it (git checkout -- the file) before
// the snapshot's git compares it, is unknown. git compares the content of
// a file whose status alone differs from its entry's, and lists none
// whose content is the entry's: that git listed nothing does not say that
// no status changed since the last snapshot, and a snapshot taking it so
// (the index's statuses for the files') would have --undo write the
// index's content over the host's edit.
func TestTakeSessionPutsIndexedContentBack(t *testing.T) {
	p := agedRepo(t)
	state := t.TempDir()
	now := time.Now()
	if _, err := Take(context.Background(), state, p, now, now.Add(time.Hour), nil, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(p.Checkout, "pkg1", "f1.go")
	indexed, _ := os.ReadFile(path)
	edit := bytes.ToUpper(indexed) // the host's, of the same size
	os.WriteFile(path, edit, 0o644)
	time.Sleep(20 * time.Millisecond) // past the filesystem clock's tick
	since, err := Mark(state, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	os.WriteFile(path, indexed, 0o644) // the session's, before the snapshot reads
	s, err := Take(context.Background(), state, p, now.Add(time.Second), since, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Unknown, "pkg1/f1.go") {
		t.Fatalf("unknown: %q, want the file the session put back", s.Unknown)
	}
}
