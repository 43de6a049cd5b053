package environment

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "env")
	writeFile(t, good, "# comment\n\nA\nexport B=two words\n C=\n")
	f, err := ReadFile(good, false)
	want := []Entry{{Name: "A"}, {Name: "B", Value: "two words", Set: true}, {Name: "C", Set: true}}
	if err != nil || !slices.Equal(f.Entries, want) || !f.lines {
		t.Fatalf("ReadFile = %+v, %v", f, err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(good, link)
	if _, err := ReadFile(link, false); err == nil {
		t.Error("a symlink was followed")
	}
	if f, err := ReadFile(link, true); err != nil || len(f.Entries) != 3 {
		t.Errorf("follow: %+v, %v", f, err)
	}
	if f, err := ReadFile(filepath.Join(dir, "missing"), false); err != nil || len(f.Entries) != 0 {
		t.Errorf("missing: %+v, %v", f, err)
	}
	bad := filepath.Join(dir, "bad")
	writeFile(t, bad, "OK=1\nnot a name\x1b]0;x\n")
	if _, err := ReadFile(bad, false); err == nil || err.Error() != bad+`:2: "not a name\x1b]0;x" is not NAME or NAME=VALUE` {
		t.Errorf("malformed: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadFileBesideStandIn: a launch of the project beside makes the
// env file's stand-in (a socket of mode 000) while this one reads it:
// the file reads as empty, never as an error.
func TestReadFileBesideStandIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), ProjectFile)
	for i := range 2000 {
		os.Remove(path)
		made := make(chan struct{})
		go func() {
			defer close(made)
			unix.Mknod(path, unix.S_IFSOCK, 0)
		}()
		_, err := ReadFile(path, false)
		<-made
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
	}
}
