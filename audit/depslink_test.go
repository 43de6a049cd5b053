package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanDepsLink: a link named node_modules, where npm looks up what a
// script runs, made during the session (to a runner it wrote in an
// ignored directory) is a finding; one there before it (a Nix shell's
// link into the store) is not.
func TestScanDepsLink(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "old", "store", ".bin", "run"))
	must(t, os.Symlink("store", filepath.Join(root, "old", "node_modules")))
	since := mark(t, t.TempDir())
	write(t, filepath.Join(root, "build", "deps", ".bin", "run"))
	must(t, os.Symlink("build/deps", filepath.Join(root, "node_modules")))
	got := Scan(root, since, nil, nil, nil).Found
	if !slices.Contains(got, filepath.Join(root, "node_modules")) {
		t.Errorf("the node_modules link the session made is no finding: %q", got)
	}
	if slices.Contains(got, filepath.Join(root, "old", "node_modules")) {
		t.Errorf("a node_modules link there before the session is a finding: %q", got)
	}
}
