package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMoveAsideBesideNameTaken: the name a finding that cannot go aside is
// renamed to is its own with the time added, which the session can
// guess to the millisecond and make first (a few thousand empty files a
// second): the rename, which replaces nothing, failed, and the .envrc
// stayed where direnv obeys it. So did one whose name with the time added
// is over the 255 bytes a name may have.
func TestMoveAsideBesideNameTaken(t *testing.T) {
	root, dest := otherFS(t), t.TempDir()
	long := strings.Repeat("x", 240)
	for _, name := range []string{".envrc", long} {
		f, err := os.Create(filepath.Join(root, name))
		must(t, err)
		must(t, f.Truncate(1<<40))
		f.Close()
	}
	must(t, os.WriteFile(filepath.Join(root, ".envrc.claudebox-aside-"+filepath.Base(dest)), nil, 0o600))
	var moved []Moved
	var err error
	within(t, "MoveAside", func() {
		moved, err = MoveAside(root, dest, []string{filepath.Join(root, ".envrc"), filepath.Join(root, long)})
	})
	if err != nil || len(moved) != 2 {
		t.Fatalf("moved %v, %v", moved, err)
	}
	for _, name := range []string{".envrc", long} {
		if _, err := os.Lstat(filepath.Join(root, name)); err == nil {
			t.Errorf("%.20s… is still at its name", name)
		}
	}
	for _, m := range moved {
		if fi, err := os.Lstat(m.To); err != nil || fi.Size() != 1<<40 || filepath.Dir(m.To) != root {
			t.Errorf("%.40s… beside itself at %.60s…: %v", m.From, m.To, err)
		}
	}
}
