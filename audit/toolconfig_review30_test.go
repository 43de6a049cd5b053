package audit

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScanPytestConfigs: a conftest.py or pytest.ini the session made,
// untracked or where git ignores it, at any depth, is found: pytest
// imports every conftest.py where it collects tests, an editor's test
// discovery as the folder opens; a test module beside it is the
// project's source, left to the user's review.
func TestScanPytestConfigs(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, rel := range []string{"conftest.py", "tests/unit/conftest.py", "pytest.ini"} {
		write(t, filepath.Join(root, rel))
		want = append(want, filepath.Join(root, rel))
	}
	write(t, filepath.Join(root, "tests", "unit", "test_app.py"))
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
