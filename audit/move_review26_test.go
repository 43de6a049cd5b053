package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMoveAsideDirectoryWholeOrNot: across filesystems a directory was
// moved file by file; one file over the bound of what is copied stopped
// it part way, the files before it gone from the project into dest,
// and the rest renamed beside itself and named alone. Now nothing of it
// is in dest, the one place named holds it whole, and the copy made
// meanwhile is gone.
func TestMoveAsideDirectoryWholeOrNot(t *testing.T) {
	root, dest := otherFS(t), filepath.Join(t.TempDir(), "20261130T000000.000Z")
	pkg := filepath.Join(root, "node_modules", "evil")
	must(t, os.MkdirAll(pkg, 0o755))
	// Made first: a tmpfs lists the newest first.
	f, err := os.Create(filepath.Join(pkg, "zz.bin"))
	must(t, err)
	must(t, f.Truncate(copyLimit+1))
	f.Close()
	must(t, os.WriteFile(filepath.Join(pkg, "a.js"), []byte("a\n"), 0o644))
	var moved []Moved
	within(t, "MoveAside", func() { moved, err = MoveAside(root, dest, []string{pkg}) })
	if err != nil || len(moved) != 1 || moved[0].From != pkg {
		t.Fatalf("moved %v, %v", moved, err)
	}
	if b, err := os.ReadFile(filepath.Join(moved[0].To, "a.js")); err != nil || string(b) != "a\n" {
		t.Errorf("a.js is not at %s, with zz.bin: %q, %v", moved[0].To, b, err)
	}
	if fi, err := os.Stat(filepath.Join(moved[0].To, "zz.bin")); err != nil || fi.Size() != copyLimit+1 {
		t.Errorf("zz.bin is not at %s: %v", moved[0].To, err)
	}
	for _, left := range []string{filepath.Join(dest, "node_modules", "evil"), dest + CopyingSuffix} {
		if _, err := os.Lstat(left); err == nil {
			t.Errorf("%s is left", left)
		}
	}
}
