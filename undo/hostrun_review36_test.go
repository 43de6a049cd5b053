package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunLockfiles: a package manager's lockfile, which says where
// each package is fetched from (npm ci installs the package-lock.json's
// resolved tarball and runs its install script), is what the host runs
// where git ignores it, at any level; a file only named like one is not.
func TestHostRunLockfiles(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]bool{
		"package-lock.json": true, "web/yarn.lock": true, "Cargo.lock": true, "uv.lock": true, "Gemfile.lock": true,
		"composer.lock": true, "flake.lock": true, "notes/package-lock.json.txt": false, "data.lock": false,
	}
	for rel := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel, want := range files {
		if got := now.hostRun(checkout, rel); got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}
