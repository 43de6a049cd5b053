package undo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
)

// TestDirRecordNamesSorted: the record of directories keeps each one's
// names sorted, as the index keeps its files, for the next exit to check
// a directory of committed files against them in one pass; a record of
// the first version, which kept them as they were read, is none. A
// directory holding a name the index lacks between two it holds (an
// untracked file, rewritten in place by the session, which changes
// nothing of its directory's status) is read, and the rewrite found.
func TestDirRecordNamesSorted(t *testing.T) {
	checkout := t.TempDir()
	leaf := filepath.Join(checkout, "leaf")
	os.Mkdir(leaf, 0o755)
	for _, f := range []string{"c.go", "a.go", "d.go", "b.go"} {
		os.WriteFile(filepath.Join(leaf, f), []byte("package x\n"), 0o644)
	}
	mixed := filepath.Join(checkout, "mixed")
	os.Mkdir(mixed, 0o755)
	for _, f := range []string{"c.go", "a.go", "b0.txt"} {
		os.WriteFile(filepath.Join(mixed, f), []byte("x\n"), 0o644)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "leaf", "mixed/a.go", "mixed/c.go"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", checkout}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	since := after(t, t.TempDir(), checkout)
	var st unix.Stat_t
	unix.Stat(checkout, &st)
	c, _, ok := audit.GitCompares(filepath.Join(checkout, ".git"), since)
	if !ok {
		t.Fatal("the committed files are not known")
	}
	first := &dirRecords{dev: st.Dev}
	if _, err := walkCheckout(checkout, nil, since, nil, &c, first); err != nil {
		t.Fatal(err)
	}
	names := func(record []byte, rel string) string {
		at, ok := parseDirs(record, st.Dev)
		if !ok {
			t.Fatal("the record does not parse")
		}
		d := &dirRecords{dev: st.Dev, known: record, at: at}
		off, ok := d.find(rel)
		if !ok {
			t.Fatalf("the record lacks %s", rel)
		}
		var s []string
		for name := range recordedNames(d.namesAt(off)) {
			s = append(s, string(name))
		}
		return filepath.Join(s...)
	}
	record := recordOf(first)
	if got := names(record, "leaf"); got != "a.go/b.go/c.go/d.go" {
		t.Errorf("the record keeps leaf's names as %s, want them sorted", got)
	}
	// A record of the first version, names as they were read, is none.
	v1 := append([]byte("claudebox dirs 1\n"), record[len(dirsMagic):]...)
	if _, ok := parseDirs(v1, st.Dev); ok {
		t.Error("a record of the first version is read")
	}
	// The session rewrites the untracked file in place.
	os.WriteFile(filepath.Join(mixed, "b0.txt"), []byte("y\n"), 0o644)
	at, _ := parseDirs(record, st.Dev)
	now, err := walkCheckout(checkout, nil, since, nil, &c, &dirRecords{dev: st.Dev, known: record, at: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := now.recent["mixed/b0.txt"]; !ok {
		t.Errorf("the untracked file rewritten in place is not found (%v)", now.recent)
	}
}
