package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// findNested finds repositories and .claude directories two levels down,
// in the order of a walk by name however many directories it looks
// through at once, and never through a link, a .git or node_modules.
func TestFindNestedInWalkOrder(t *testing.T) {
	root := t.TempDir()
	mkdir := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		t.Helper()
		mkdir(filepath.Dir(p))
		if err := os.WriteFile(filepath.Join(root, p), []byte("gitdir: x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("a/.git")
	write("a/b/.git")   // a linked worktree's or a submodule's .git file
	mkdir("a/b/c/.git") // three levels down: not looked at
	mkdir("c/.claude")
	write("c/d/.claude") // not a directory
	mkdir("e/.git")
	mkdir("e/.claude")
	mkdir("node_modules/x/.git")
	mkdir(".git/y/.git")
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	var want []nestedFind
	want = append(want,
		nestedFind{dir: "a", repo: true},
		nestedFind{dir: "a/b", repo: true},
		nestedFind{dir: "c", claude: true},
		nestedFind{dir: "e", repo: true, claude: true})
	// Enough directories that several are looked through at once.
	for i := range 40 {
		mkdir(fmt.Sprintf("p%02d/q/.git", i))
		want = append(want, nestedFind{dir: fmt.Sprintf("p%02d/q", i), repo: true})
	}
	for i := range want {
		want[i].dir = filepath.Join(root, want[i].dir)
	}
	if got := findNested(root, 2); !slices.Equal(got, want) {
		t.Errorf("findNested:\n got %v\nwant %v", got, want)
	}
}
