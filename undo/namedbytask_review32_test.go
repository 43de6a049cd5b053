package undo

import (
	"os"
	"path/filepath"
	"testing"
)

// An ignored file a task file in its directory or above names by its
// path is one the host runs (sh build/gen in a makefile's recipe),
// whatever its name, mode or first line; one named only as part of a
// longer name is not.
func TestNamedByTask(t *testing.T) {
	checkout := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(checkout, "web", "build"), 0o755))
	must(os.WriteFile(filepath.Join(checkout, "Makefile"), []byte("gen:\n\tsh build/gen\n\tpython3 ./tools/mk --out build/generated\n"), 0o644))
	must(os.WriteFile(filepath.Join(checkout, "web", "package.json"), []byte(`{"scripts": {"pre": "sh build/pre"}}`), 0o644))
	now := tree{}
	for path, want := range map[string]bool{
		"build/gen": true, "tools/mk": true, "web/build/pre": true,
		"build/ge": false, "build/generate": false, "web/build/gen": false, "build/pre": false, "other": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}
