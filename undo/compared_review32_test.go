package undo

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
)

// comparedCheckout is a checkout of two committed files, lib/a.go and
// lib/b.go, and its project's store, where every index's compared files
// are kept.
func comparedCheckout(t *testing.T) (instance.Project, store, string) {
	t.Helper()
	was, ask := comparedKeptFrom, comparedAskFrom
	comparedKeptFrom, comparedAskFrom = 0, 0
	t.Cleanup(func() { comparedKeptFrom, comparedAskFrom = was, ask })
	checkout := t.TempDir()
	os.MkdirAll(filepath.Join(checkout, "lib"), 0o755)
	for _, f := range []string{"lib/a.go", "lib/b.go"} {
		os.WriteFile(filepath.Join(checkout, f), []byte("package lib\n"), 0o644)
	}
	git(t, checkout, "init", "-q")
	git(t, checkout, "add", "lib")
	git(t, checkout, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib")
	state := t.TempDir()
	st := storeOf(state, checkout)
	os.MkdirAll(st.dir, 0o700)
	return instance.Project{Root: checkout, Checkout: checkout, GitDir: filepath.Join(checkout, ".git")}, st, state
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestComparedKeptReview32: the files an index's entries compare, kept in
// the store by one exit, are what the next exit takes while the index is
// the same file, unchanged (a forged record of the same status is
// believed: it is read, not parsed again); an index the host's git
// rewrote between the sessions (a file no longer tracked, one made
// assume-unchanged: the same size) is parsed again, so that a file it no
// longer compares, which the session then rewrites in place, is found
// changed. Mutation: readCompared not comparing the index's status takes
// the last record for the rewritten index, and lib/b.go is not read.
func TestComparedKeptReview32(t *testing.T) {
	p, st, state := comparedCheckout(t)
	since := after(t, state, p.Checkout)
	c, done := st.comparedOf(p, since)
	if c == nil || !c.Has("lib/a.go") || !c.Has("lib/b.go") {
		t.Fatalf("the committed files are not compared: %v", c)
	}
	done()
	path := filepath.Join(st.dir, comparedName(p.Checkout))
	kept, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A record of the same status naming a file the index does not.
	head := len(comparedMagic) + 4*8
	forged := binary.NativeEndian.AppendUint32(kept[:head:head], 1)
	forged = binary.NativeEndian.AppendUint32(forged, uint32(len("lib/forged.go")))
	forged = append(forged, "lib/forged.go"...)
	os.WriteFile(path, forged, 0o600)
	if c, done := st.comparedOf(p, since); c == nil || !c.Has("lib/forged.go") || c.Has("lib/a.go") {
		t.Fatalf("the kept record was not read: %v", c)
	} else {
		done()
	}
	os.WriteFile(path, kept, 0o600)
	for _, between := range [][]string{{"rm", "-q", "--cached", "lib/b.go"}, {"update-index", "--assume-unchanged", "lib/b.go"}} {
		t.Run(between[0], func(t *testing.T) {
			os.WriteFile(path, kept, 0o600)
			git(t, p.Checkout, "reset", "-q")
			git(t, p.Checkout, "update-index", "--no-assume-unchanged", "lib/b.go")
			git(t, p.Checkout, between...)
			since := after(t, state, p.Checkout)
			c, done := st.comparedOf(p, since)
			if c == nil || !c.Has("lib/a.go") || c.Has("lib/b.go") {
				t.Fatalf("lib/b.go is taken for compared after git %v", between)
			}
			// The session rewrites it in place.
			os.WriteFile(filepath.Join(p.Checkout, "lib", "b.go"), []byte("planted\n"), 0o644)
			now, err := walkCheckout(p.Checkout, nil, since, nil, c, nil)
			done()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := now.recent["lib/b.go"]; !ok {
				t.Fatalf("the walk did not find lib/b.go changed: %v", now.recent)
			}
		})
	}
}

// TestComparedFromBad: a record cut short or whose ends run past its
// paths gives none.
func TestComparedFromBad(t *testing.T) {
	var good []byte
	good = binary.NativeEndian.AppendUint32(good, 2)
	good = binary.NativeEndian.AppendUint32(good, 3)
	good = binary.NativeEndian.AppendUint32(good, 6)
	good = append(good, "abcdef"...)
	if c, ok := audit.ComparedFrom(good); !ok || !c.Has("abc") || !c.Has("def") || c.Has("abcdef") {
		t.Fatalf("a whole record is not read: %v %v", c, ok)
	}
	for _, b := range [][]byte{nil, good[:3], good[:10], good[:len(good)-1], append(good[:8:8], 9, 0, 0, 0, 'x')} {
		if _, ok := audit.ComparedFrom(b); ok {
			t.Errorf("%q read as a record", b)
		}
	}
}
