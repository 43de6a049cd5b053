package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanMercurialIncludeThroughLink: hg opens what an hgrc includes
// following links, a directory's on the way too; the session's link in
// place of the directory an include names, to a directory of its own
// holding a file of that name, is what hg reads at the host's hg status.
func TestScanMercurialIncludeThroughLink(t *testing.T) {
	root := t.TempDir()
	for rel, content := range map[string]string{
		".hg/hgrc":       "[paths]\ndefault = https://hg.example.com\n%include ../conf/hgrc.team\n%include hgrc.d/local.rc\n",
		"conf/hgrc.team": "[ui]\n",
	} {
		write(t, filepath.Join(root, rel))
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	// The session: conf swapped for a link to its own directory, and
	// .hg/hgrc.d a link to another.
	for rel, content := range map[string]string{"evil/hgrc.team": "[hooks]\npre-status = touch /tmp/x\n", "evil2/local.rc": "[hooks]\npre-status = touch /tmp/y\n"} {
		write(t, filepath.Join(root, rel))
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(filepath.Join(root, "conf"), filepath.Join(root, "conf.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("evil", filepath.Join(root, "conf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../evil2", filepath.Join(root, ".hg/hgrc.d")); err != nil {
		t.Fatal(err)
	}
	r := Scan(root, since, nil, start, nil)
	for _, rel := range []string{"conf", ".hg/hgrc.d"} {
		if !slices.Contains(r.Found, filepath.Join(root, rel)) {
			t.Errorf("the session's link %s is not found: %q", rel, r.Found)
		}
	}
}
