package audit

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestScanVersionFiles: a .<tool>-version the session made untracked is
// found, at the top or below (a version manager reads the one where it
// starts, a path: version's programs run by their names); what only
// shares a part of the name is not, nor the registry's own
// (.python-version, judged as the registry says).
func TestScanVersionFiles(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	var want []string
	for _, name := range []string{".go-version", ".java-version", ".terraform-version", ".bun-version"} {
		for _, dir := range []string{"", "sub"} {
			p := filepath.Join(root, dir, name)
			write(t, p)
			want = append(want, p)
		}
	}
	for _, rel := range []string{"app-version", ".-version", "docs/.go-version.md", "docs/.a.b-version", "VERSION"} {
		write(t, filepath.Join(root, rel))
	}
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
