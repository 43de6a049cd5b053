package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunManifests: a package manager's manifest the session wrote
// where git ignores it is one the host runs: a workspace's pattern takes
// its folder for a member, and the build runs what it names by any path.
// pnpm reads a package.json5 (and a package.yaml) as a package.json.
func TestHostRunManifests(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]bool{
		"crates/debug/Cargo.toml": true, "CARGO.TOML": true, "packages/dist/package.json": true, "py/build/pyproject.toml": true,
		"crates/debug/b.txt": false, "notes/Cargo.toml.txt": false, "dist/package.json5": true, "dist/package.yaml": true, "package.json.orig": false,
	}
	for rel := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("[package]\n"), 0o644); err != nil {
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
