package guard

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// TestNoOpStandIn: the stand-in git reads as nothing is created whole, with
// the content that makes it a no-op, and is recognised as claudebox's only
// while it is exactly that.
func TestNoOpStandIn(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"commondir", "config.worktree"} {
		path := filepath.Join(dir, name)
		m := mount.Guard{Path: path, NoOp: true}.Mount()
		if err := CreatePlaceholder(m); err != nil {
			t.Fatal(err)
		}
		if !instance.IsPlaceholder(path) {
			t.Errorf("%s: not recognised as a stand-in", name)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, instance.StandInContent(path)) {
			t.Errorf("%s: content %q", name, b)
		}
		if err := CreatePlaceholder(m); !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: a second creation: %v, want it to exist", name, err)
		}
		os.Chmod(path, 0o644)
		os.WriteFile(path, []byte("../..\n"), 0o644)
		os.Chmod(path, 0o444)
		if instance.IsPlaceholder(path) {
			t.Errorf("%s: a file of other content taken for a stand-in", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}
