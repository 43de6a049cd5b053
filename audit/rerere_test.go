package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanRerere: a resolution the session recorded in a repository's
// rr-cache, which git replays at the next merge meeting its conflict, is
// a finding; one recorded before it is not.
func TestScanRerere(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, ".git")
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(repo, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(repo, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	kept := filepath.Join(".git", "rr-cache", "1111", "postimage")
	write(t, filepath.Join(root, kept))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)

	recorded := filepath.Join(".git", "rr-cache", "2222", "postimage")
	write(t, filepath.Join(root, recorded))
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	if want := []string{recorded}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
