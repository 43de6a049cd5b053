package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/hardlink"
	"github.com/claudebox/claudebox/internal/leafdirs"
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
	if got := findNested(root, 2, nil); !slices.Equal(got, want) {
		t.Errorf("findNested:\n got %v\nwant %v", got, want)
	}
}

// With the look for hard links beside it, findNested takes that look's
// status of each directory two levels down, and finds what it finds
// alone: a .claude directory there (its directory's link count says it
// holds one), a .git file or directory whatever the count, and nothing
// through a link put where a directory was. Every status one look read is
// taken by the other.
func TestFindNestedTakesLeafStatuses(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/claude/.claude", "a/gitdir/.git", "a/plain", "a/sub/x", "b/plain", "b/.claude"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a/plain/.claude"), nil, 0o644); err != nil { // not a directory
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "a/gitfile"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a/gitfile/.git"), []byte("gitdir: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Join(elsewhere, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "b/link")); err != nil {
		t.Fatal(err)
	}
	want := []nestedFind{
		{dir: "a/claude", claude: true},
		{dir: "a/gitdir", repo: true},
		{dir: "a/gitfile", repo: true},
		{dir: "b", claude: true},
	}
	for i := range want {
		want[i].dir = filepath.Join(root, want[i].dir)
	}
	if alone := findNested(root, 2, nil); !slices.Equal(alone, want) {
		t.Fatalf("findNested alone:\n got %v\nwant %v", alone, want)
	}
	leaves := new(leafdirs.Statuses)
	if found := hardlink.Find(root, nil, leaves); len(found) != 0 {
		t.Fatalf("hard links found: %v", found)
	}
	if got := findNested(root, 2, leaves); !slices.Equal(got, want) {
		t.Errorf("findNested with the statuses handed:\n got %v\nwant %v", got, want)
	}
	if left := reflect.ValueOf(leaves).Elem().FieldByName("read").Len(); left != 0 {
		t.Errorf("%d statuses read by one look and not taken by the other", left)
	}
}
