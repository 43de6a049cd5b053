package untrusted

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMkdirAll: the directories are made beneath dir, through the
// descriptor's path too; a symlink in the way fails it and nothing is made
// where it leads.
func TestMkdirAll(t *testing.T) {
	dir, victim := t.TempDir(), t.TempDir()
	if err := MkdirAll(dir, "a/b/c", 0o755); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a/b/c")); err != nil || !fi.IsDir() {
		t.Fatalf("a/b/c: %v", err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "a", "link")); err != nil {
		t.Fatal(err)
	}
	f, err := OpenDir(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := MkdirAll(FDPath(f), "link/x", 0o755); err == nil {
		t.Error("MkdirAll went through a symlink")
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 0 {
		t.Errorf("made where the link leads: %v", entries)
	}
	if err := MkdirAll(dir, "../x", 0o755); err == nil {
		t.Error("MkdirAll left dir")
	}
}
