package probe

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// linksOnTheWay names each link the kernel meets, ".." after a link being
// the target's parent, as the kernel resolves it (and filepath.Clean would
// not: it drops "link/.." unread).
func TestLinksOnTheWay(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("a/b", "link")                       // relative
	link(filepath.Join(root, "c"), "a/b/abs") // absolute, met through link
	link("../link", "c/back")                 // a chain back to the first
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"link/../ca.pem", []string{"link"}},
		{"link/abs/x", []string{"link", "a/b/abs"}},
		{"c/back/abs", []string{"c/back", "link", "a/b/abs"}},
		{"a/b/x", nil},
	} {
		var want []string
		for _, w := range tc.want {
			want = append(want, filepath.Join(root, w))
		}
		if got := linksOnTheWay(root + "/" + tc.path); !slices.Equal(got, want) {
			t.Errorf("linksOnTheWay(%s) = %v, want %v", tc.path, got, want)
		}
	}
}
