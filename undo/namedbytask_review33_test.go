package undo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNamedByTaskBuiltPath: a task file that runs a path in a directory
// built from a variable or a pattern (sh build/$(NAME), sh
// gen/${TARGET}, just's out/{{name}}, make's obj/%) names every file
// in that directory; a directory only named (rm -rf dist/), or the end
// of a longer one (uild/ in rebuild/$(X)), names none.
func TestNamedByTaskBuiltPath(t *testing.T) {
	checkout := t.TempDir()
	for path, text := range map[string]string{
		"Makefile":          "NAME := gen\ngen:\n\tsh build/$(NAME)\n\trm -rf dist/ rebuild/$(X)\nobj/%: src/%\n\tcp $< $@\n",
		"web/package.json":  `{"scripts": {"gen": "sh gen/${TARGET}"}}`,
		"tools/justfile":    "run name:\n\tsh out/{{name}}\n",
		"tools/deep/README": "sh deep/$(X)\n",
	} {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := tree{}
	for path, want := range map[string]bool{
		"build/gen": true, "build/sub/x": false, "obj/a": true, "web/gen/x": true, "tools/out/y": true,
		"rebuild/x": true, "dist/x": false, "uild/x": false, "gen/x": false, "tools/deep/x": false, "x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// TestNamedByTaskBuiltDir: a task file that runs a name in a directory a
// variable holds ($(OUT)/gen, ${OUT}/run, {{out}}/x) names every file of
// that name below it; a longer name ($(OUT)/general) or a plain one
// (src/gen) names none.
func TestNamedByTaskBuiltDir(t *testing.T) {
	checkout := t.TempDir()
	text := "OUT := build\ngen:\n\tsh $(OUT)/gen\n\tsh ${OUT}/run\n\tsh {{out}}/x\n\tsh $(OUT)/general src/gen2\n"
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	now := tree{}
	for path, want := range map[string]bool{
		"out/gen": true, "build/run": true, "a/b/x": true, "build/gene": false, "build/gen2": false, "build/y": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// TestNamedByTaskBuildsAskedOnce: whether a task file builds names in a
// directory is asked once for all its files: a Makefile of 1 MiB holding
// build/ 150,000 times took 4.5 ms an ask, and the exit of a session that
// left 100,000 ignored files in build/ minutes.
func TestNamedByTaskBuildsAskedOnce(t *testing.T) {
	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), []byte("all:\n\trm -rf build/ out/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := tree{tasks: &taskTexts{read: map[string][]byte{}, builds: map[[2]string]bool{}}}
	for _, p := range []string{"build/a", "build/b", "build/c", "out/a"} {
		now.namedByTask(checkout, p)
	}
	if len(now.tasks.builds) != 2 {
		t.Errorf("asked %d times of the Makefile's directories, want 2 (build/, out/): %v", len(now.tasks.builds), now.tasks.builds)
	}
}
