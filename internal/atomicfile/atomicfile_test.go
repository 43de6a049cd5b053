package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReplacesLink: the new content replaces a symlink at path, and
// the file the link pointed to is left as it was.
func TestWriteReplacesLink(t *testing.T) {
	dir := t.TempDir()
	target, path := filepath.Join(dir, "target"), filepath.Join(dir, "file")
	if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("ours"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("written through the link: %q", b)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v, %v", fi, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "ours" {
		t.Errorf("content %q", b)
	}
	if m := Mode(path, 0o644); m != 0o600 {
		t.Errorf("Mode of the file: %v", m)
	}
	if m := Mode(filepath.Join(dir, "none"), 0o644); m != 0o644 {
		t.Errorf("Mode of no file: %v", m)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

// A write that fails part way leaves the old file as it was, and no
// temporary file beside it.
func TestWriteFromFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "record")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := WriteFrom(path, 0o600, false, func(w io.Writer) error {
		w.Write([]byte("half"))
		return io.ErrUnexpectedEOF
	})
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("record = %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside it: %v", entries)
	}
}
