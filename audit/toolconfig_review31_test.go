package audit

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPythonStartupModules: a sitecustomize.py or usercustomize.py
// the session made, or such a package's __init__.py, untracked or where
// git ignores it, at any depth, is found: every python3 imports it from
// a directory on its path (PYTHONPATH=$PWD/src), wherever it runs; a
// module beside it is the project's source, left to the user's review.
func TestScanPythonStartupModules(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, rel := range []string{"src/sitecustomize.py", "usercustomize.py", "lib/sitecustomize/__init__.py", "lib2/usercustomize/__init__.py"} {
		write(t, filepath.Join(root, rel))
		want = append(want, filepath.Join(root, rel))
	}
	write(t, filepath.Join(root, "src", "app.py"))
	write(t, filepath.Join(root, "src", "pkg", "__init__.py"))
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
