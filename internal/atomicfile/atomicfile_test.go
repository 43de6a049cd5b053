package atomicfile

import (
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
