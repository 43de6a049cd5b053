package undo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTimeSetBack: the record names a file the session changed and then
// gave its old modification time back (touch -r), not one it changed
// and left at its new time, nor one it did not change.
func TestTimeSetBack(t *testing.T) {
	p := repo(t, 3, 1)
	trustNoCtime(t, p)
	state := t.TempDir()
	began := after(t, state, p.Checkout)
	old := time.Now().Add(-time.Hour)
	hidden := filepath.Join(p.Checkout, "pkg1", "f0.go")
	os.WriteFile(hidden, []byte("package p1 // X\n"), 0o644)
	os.Chtimes(hidden, old, old)
	os.WriteFile(filepath.Join(p.Checkout, "pkg2", "f0.go"), []byte("package p2 // edited\n"), 0o644)
	c, _ := RecordChanges(state, p, began, nil, nil, nil)
	if want := []string{hidden}; !slices.Equal(c.TimeSetBack, want) {
		t.Errorf("time set back: %q, want %q", c.TimeSetBack, want)
	}
}
