package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanMadeInModulesAndAnnex: what the session made in a git
// directory's modules/ (a bare repository, a file, a link), at any depth,
// and in its annex/ by a name not git-annex's own, is a finding: each is
// mounts of its own at the next launch, and by the hundred every later
// launch refused. What was there at the start stays, changed or not, and
// so does what git-annex makes by its own names.
func TestScanMadeInModulesAndAnnex(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		".git/HEAD", ".git/config", ".git/objects/info/packs", ".git/modules/mine/HEAD", ".git/modules/mine/config", ".git/modules/mine/objects/info/packs",
		".git/annex/objects/x", ".git/annex/creds/s3", "modules/keep.tf",
	} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{
		".git/modules/m1/HEAD", ".git/modules/m1/config", ".git/modules/m1/objects/y", ".git/modules/file",
		".git/modules/mine/FETCH_HEAD", ".git/modules/mine/objects/info/packs", ".git/modules/mine/modules/inner/HEAD", ".git/modules/mine/modules/inner/config",
		".git/annex/pad1", ".git/annex/padded/x", ".git/annex/journal/x", ".git/annex/index", ".git/annex/creds/s3b", "modules/new.tf",
	} {
		write(t, filepath.Join(root, p))
	}
	if err := os.Symlink(root, filepath.Join(root, ".git/modules/link")); err != nil {
		t.Fatal(err)
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{".git/annex/pad1", ".git/annex/padded", ".git/modules/file", ".git/modules/link", ".git/modules/m1", ".git/modules/mine/modules/inner"}; !slices.Equal(got, want) {
		t.Errorf("found:\n%q\nwant:\n%q", got, want)
	}
}
