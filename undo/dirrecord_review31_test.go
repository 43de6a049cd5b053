package undo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/audit"
	"golang.org/x/sys/unix"
)

// recordedTree makes a checkout of unchanged directories holding untracked
// files (a script among them), walks it once after a start, and is the
// record that walk kept, as the next exit reads it.
//
// lib/ and lib/sub/ hold only committed files (whose change the host's
// git shows: the walk reads none, and takes such a directory whole from
// the record without opening it); c/ holds one beside untracked ones.
// compared are the committed files (nil unless withCompared).
func recordedTree(t *testing.T, withCompared bool) (checkout string, record *dirRecords, compared gitCompared) {
	t.Helper()
	checkout = t.TempDir()
	for _, dir := range []string{"a", "a/b", "c", "empty", "twin1", "twin2", "outside", "lib/sub"} {
		os.MkdirAll(filepath.Join(checkout, dir), 0o755)
	}
	for _, f := range []string{"a/run.sh", "a/b/x.py", "c/tool", "twin1/run.sh", "twin2/run.sh", "outside/keep", "lib/l1.go", "lib/l2.go", "lib/sub/l3.go", "c/lib.go"} {
		os.WriteFile(filepath.Join(checkout, f), []byte("harmless\n"), 0o755)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "lib", "c/lib.go"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib"}} {
		if out, err := exec.Command("git", append([]string{"-C", checkout}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A hard link whose other name is in another directory.
	os.Link(filepath.Join(checkout, "c", "tool"), filepath.Join(checkout, "outside", "tool"))
	since := after(t, t.TempDir(), checkout)
	var st unix.Stat_t
	unix.Stat(checkout, &st)
	if withCompared {
		c, _, ok := audit.GitCompares(filepath.Join(checkout, ".git"), since)
		if !ok {
			t.Fatal("the committed files are not known")
		}
		compared = &c
	}
	first := &dirRecords{dev: st.Dev}
	if _, err := walkCheckout(checkout, nil, since, nil, compared, first); err != nil {
		t.Fatal(err)
	}
	b := recordOf(first)
	at, ok := parseDirs(b, st.Dev)
	if !ok || len(at) != 10 {
		t.Fatalf("the record holds %d directories (ok %v), want the 10 read", len(at), ok)
	}
	return checkout, &dirRecords{dev: st.Dev, known: b, at: at}, compared
}

// recordOf is the record d made, as close writes it.
func recordOf(d *dirRecords) []byte {
	var b bytes.Buffer
	d.writeTo(&b)
	return b.Bytes()
}

// TestDirRecordAttacks: what a session does in a checkout whose
// directories the last exit recorded is found as by a walk that reads
// every directory: a file the host made between the sessions, rewritten
// in place (the directory's inode is the record's, its time not), a file
// added, a directory the record lacks, one moved over another
// holding the same names, one removed and made again (its inode number
// may be the old one's), a file's content rewritten in place in an
// unchanged directory (its status changes, not the directory's), a write
// through a hard link from another directory, a directory made
// unreadable, a file made a sparse terabyte. Each case's walk with the
// record and without it must find the same.
func TestDirRecordAttacks(t *testing.T) {
	for _, c := range []struct {
		name    string
		between func(checkout string)
		attack  func(checkout string)
		want    []string
	}{
		{"made between sessions", func(d string) {
			os.WriteFile(filepath.Join(d, "c", "host.sh"), []byte("harmless\n"), 0o755)
		}, func(d string) {
			f, _ := os.OpenFile(filepath.Join(d, "c", "host.sh"), os.O_WRONLY, 0)
			f.WriteAt([]byte("planted\n"), 0)
			f.Close()
		}, []string{"c/host.sh"}},
		{"new directory", nil, func(d string) {
			os.MkdirAll(filepath.Join(d, "a", "new"), 0o755)
			os.WriteFile(filepath.Join(d, "a", "new", "run.sh"), []byte("planted\n"), 0o755)
		}, []string{"a/new/run.sh"}},
		{"file added", nil, func(d string) {
			os.WriteFile(filepath.Join(d, "c", "planted.sh"), []byte("planted\n"), 0o755)
		}, []string{"c/planted.sh"}},
		{"renamed over a twin", nil, func(d string) {
			os.WriteFile(filepath.Join(d, "twin2", "run.sh"), []byte("planted\n"), 0o755)
			os.RemoveAll(filepath.Join(d, "twin1"))
			os.Rename(filepath.Join(d, "twin2"), filepath.Join(d, "twin1"))
		}, []string{"twin1/run.sh"}},
		{"made again", nil, func(d string) {
			os.RemoveAll(filepath.Join(d, "a", "b"))
			os.Mkdir(filepath.Join(d, "a", "b"), 0o755)
			os.WriteFile(filepath.Join(d, "a", "b", "x.py"), []byte("planted\n"), 0o644)
			os.WriteFile(filepath.Join(d, "a", "b", "y.sh"), []byte("planted\n"), 0o755)
		}, []string{"a/b/x.py", "a/b/y.sh"}},
		{"rewritten in place", nil, func(d string) {
			f, _ := os.OpenFile(filepath.Join(d, "a", "run.sh"), os.O_WRONLY, 0)
			f.WriteAt([]byte("planted\n"), 0)
			f.Close()
		}, []string{"a/run.sh"}},
		{"hard link", nil, func(d string) {
			os.WriteFile(filepath.Join(d, "outside", "tool"), []byte("planted\n"), 0o755)
		}, []string{"c/tool", "outside/tool"}},
		{"chmod 000", nil, func(d string) {
			os.WriteFile(filepath.Join(d, "c", "tool"), []byte("planted\n"), 0o755)
			os.Chmod(filepath.Join(d, "c"), 0)
		}, []string{"c/tool", "outside/tool"}},
		{"sparse terabyte", nil, func(d string) {
			os.Truncate(filepath.Join(d, "a", "b", "x.py"), 1<<40)
		}, []string{"a/b/x.py"}},
		{"added to committed files", nil, func(d string) {
			os.WriteFile(filepath.Join(d, "lib", "sub", "run.sh"), []byte("planted\n"), 0o755)
		}, []string{"lib/sub/run.sh"}},
		{"committed files made again", nil, func(d string) {
			os.RemoveAll(filepath.Join(d, "lib", "sub"))
			os.Mkdir(filepath.Join(d, "lib", "sub"), 0o755)
			os.WriteFile(filepath.Join(d, "lib", "sub", "l3.go"), []byte("planted\n"), 0o644)
			os.WriteFile(filepath.Join(d, "lib", "sub", "l4.go"), []byte("planted\n"), 0o644)
		}, []string{"lib/sub/l3.go", "lib/sub/l4.go"}},
		{"committed files closed", nil, func(d string) {
			os.Chmod(filepath.Join(d, "lib", "sub"), 0o500)
		}, nil},
		{"nothing", nil, func(string) {}, nil},
	} {
		for _, withCompared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, committed files compared %v", c.name, withCompared), func(t *testing.T) {
				checkout, record, compared := recordedTree(t, withCompared)
				if c.between != nil {
					c.between(checkout)
				}
				since := after(t, t.TempDir(), checkout)
				c.attack(checkout)
				read, err := walkCheckout(checkout, nil, since, nil, compared, nil)
				if err != nil {
					t.Fatal(err)
				}
				recorded, err := walkCheckout(checkout, nil, since, nil, compared, record)
				if err != nil {
					t.Fatal(err)
				}
				if got := slices.Sorted(mapsKeys(recorded.recent)); !slices.Equal(got, c.want) {
					t.Errorf("with the record, changed: %q, want %q", got, c.want)
				}
				if !reflect.DeepEqual(read, recorded) {
					t.Errorf("with the record the walk found\n%+v\nreading every directory\n%+v", recorded, read)
				}
			})
		}
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestDirRecordTaken: a directory whose inode and status change time are
// the record's is not read: its names are the record's (a name the
// record holds that is not there is taken for removed since); one whose
// time is not is read.
func TestDirRecordTaken(t *testing.T) {
	checkout, record, _ := recordedTree(t, false)
	since := after(t, t.TempDir(), checkout)
	var st unix.Stat_t
	unix.Stat(filepath.Join(checkout, "c"), &st)
	forged := &dirRecords{dev: record.dev}
	forged.keep("c", st.Ino, st.Ctim.Nano(), appendName(nil, []byte("ghost"), unix.DT_REG))
	forged.keep("a", 1, 1, appendName(nil, []byte("ghost"), unix.DT_REG))
	b := recordOf(forged)
	at, _ := parseDirs(b, record.dev)
	forged = &dirRecords{dev: record.dev, known: b, at: at}
	now, err := walkCheckout(checkout, nil, since, nil, nil, forged)
	if err != nil {
		t.Fatal(err)
	}
	if !now.gone["c/ghost"] || now.gone["a/ghost"] {
		t.Errorf("gone: %v, want c/ghost alone (c from the record, a read)", now.gone)
	}
	// The record made of it is the record's again.
	if at, ok := parseDirs(recordOf(forged), record.dev); !ok || len(at) != 10 {
		t.Errorf("the record made holds %d directories, want 10", len(at))
	}
}

// TestDirRecordBadRecord: a record cut short, of another filesystem, or
// of another format is none.
func TestDirRecordBadRecord(t *testing.T) {
	d := &dirRecords{dev: 7}
	d.keep("a", 1, 2, appendName(nil, []byte("x"), unix.DT_REG))
	whole := recordOf(d)
	for name, b := range map[string][]byte{"whole": whole, "cut": whole[:len(whole)-3], "other": append([]byte("claudebox dirs 0\n"), whole[len(dirsMagic):]...)} {
		_, ok := parseDirs(b, 7)
		if ok != (name == "whole") {
			t.Errorf("%s: read %v", name, ok)
		}
	}
	if _, ok := parseDirs(whole, 8); ok {
		t.Error("a record of another filesystem is read")
	}
}

// TestDirRecordAllocations: a directory whose names come from the record
// costs the walk no more allocations than one it reads (the flood's
// supervisor bound: garbage made beside a large live record); a
// comparison of paths that made a string of each cost 13.6 a directory
// against 5.1.
func TestDirRecordAllocations(t *testing.T) {
	tree := func(n int) (string, *dirRecords) {
		checkout := t.TempDir()
		for i := range n {
			dir := filepath.Join(checkout, fmt.Sprintf("d%03d", i))
			os.Mkdir(dir, 0o755)
			for f := range 5 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), nil, 0o644)
			}
		}
		since := after(t, t.TempDir(), checkout)
		var st unix.Stat_t
		unix.Stat(checkout, &st)
		d := &dirRecords{dev: st.Dev}
		walkCheckout(checkout, nil, since, nil, nil, d)
		b := recordOf(d)
		at, _ := parseDirs(b, st.Dev)
		return checkout, &dirRecords{dev: st.Dev, known: b, at: at}
	}
	small, smallRecord := tree(20)
	large, largeRecord := tree(120)
	since := after(t, t.TempDir(), large)
	allocs := func(checkout string, record *dirRecords) float64 {
		return testing.AllocsPerRun(5, func() {
			walkCheckout(checkout, nil, since, nil, nil, &dirRecords{dev: record.dev, known: record.known, at: record.at})
		})
	}
	// Read: a record is made, none taken.
	perDirRead := (allocs(large, &dirRecords{dev: largeRecord.dev}) - allocs(small, &dirRecords{dev: smallRecord.dev})) / 100
	perDirRecorded := (allocs(large, largeRecord) - allocs(small, smallRecord)) / 100
	t.Logf("allocations a directory: read %.2f, from the record %.2f", perDirRead, perDirRecorded)
	if perDirRecorded > perDirRead {
		t.Errorf("a directory from the record costs %.2f allocations, one read %.2f", perDirRecorded, perDirRead)
	}
}

// TestDirRecordKept: the record is written where the walk read a
// directory it keeps, and left as it is where it read none (each taken
// from it): a directory that changed since no longer matches what it
// holds.
func TestDirRecordKept(t *testing.T) {
	checkout, st := t.TempDir(), store{dir: t.TempDir()}
	for i := range 3 {
		os.MkdirAll(filepath.Join(checkout, fmt.Sprintf("d%d", i), "e"), 0o755)
	}
	walk := func() (ino uint64, dirs int) {
		t.Helper()
		since := after(t, t.TempDir(), checkout)
		d := st.dirsOf(checkout)
		walkCheckout(checkout, nil, since, nil, nil, d)
		d.close(st, checkout)
		path := filepath.Join(st.dir, dirsName(checkout))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var sx unix.Stat_t
		unix.Stat(path, &sx)
		at, _ := parseDirs(b, sx.Dev)
		return sx.Ino, len(at)
	}
	first, n := walk()
	if n != 7 {
		t.Fatalf("the first record holds %d directories, want 7", n)
	}
	if again, n := walk(); again != first || n != 7 {
		t.Errorf("nothing read: the record was written again (%v) or holds %d directories", again != first, n)
	}
	os.Mkdir(filepath.Join(checkout, "d1", "new"), 0o755)
	walk()
	if again, n := walk(); again == first || n != 8 {
		t.Errorf("a directory added: the record was not written again (%v) or holds %d directories, want 8", again == first, n)
	}
}
