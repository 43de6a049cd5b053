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
