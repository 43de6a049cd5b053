package undo

import (
	"os"
	"path/filepath"
	"testing"
)

// An ignored file a task file in its directory or above names by its
// path, or by a directory it lies in (cd build && sh gen, find build), is
// one the host runs (sh build/gen in a makefile's recipe, a
// CMakeLists.txt's execute_process, a meson.build's run_command),
// whatever its name, mode or first line; one whose directory is named only as part of
// a longer name (rebuild/) is not.
func TestNamedByTask(t *testing.T) {
	checkout := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(checkout, "web", "build"), 0o755))
	must(os.WriteFile(filepath.Join(checkout, "Makefile"), []byte("gen:\n\tsh build/gen\n\tpython3 ./tools/mk --out rebuild/generated\n\tcd out && sh x\n"), 0o644))
	must(os.WriteFile(filepath.Join(checkout, "web", "package.json"), []byte(`{"scripts": {"pre": "find pre -type f -exec sh {} ;"}}`), 0o644))
	// Build files run what they name as they configure.
	must(os.MkdirAll(filepath.Join(checkout, "cm"), 0o755))
	must(os.WriteFile(filepath.Join(checkout, "cm", "CMakeLists.txt"), []byte("execute_process(COMMAND sh ${CMAKE_SOURCE_DIR}/gen/run)\n"), 0o644))
	must(os.MkdirAll(filepath.Join(checkout, "ms"), 0o755))
	must(os.WriteFile(filepath.Join(checkout, "ms", "meson.build"), []byte("run_command('sh', 'tools/gen', check: false)\n"), 0o644))
	now := tree{}
	for path, want := range map[string]bool{
		"build/gen": true, "tools/mk": true, "build/ge": true, "build/a/b": true, "out/y": true, "web/pre/x": true, "rebuild/x": true,
		"cm/gen/run": true, "ms/tools/gen": true, "ms/other/gen": false,
		"uild/x": false, "web/build/x": false, "tools2/mk": false, "web/other/x": false, "pre/x": false, "other": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}
