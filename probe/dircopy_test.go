package probe

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/internal/testfs"
)

// TestDirCopy: a directory of files' private copy holds its files,
// directories and links (as they are), not a clone's .git, a bare
// repository (its config may hold its URL's token), a .git file or a
// FIFO; one beyond the bounds is not copied (it is shown whole).
func TestDirCopy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agents")
	for _, f := range []string{"a.md", "team/b.md", "team/.git/config", "bare.git/HEAD", "bare.git/objects/x", "bare.git/config", "wt/.git"} {
		testfs.Write(t, filepath.Join(dir, f), "x\n")
	}
	os.Chmod(filepath.Join(dir, "a.md"), 0o755)
	os.Symlink("../elsewhere", filepath.Join(dir, "link.md"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	c, _, ok := dirCopy(dir)
	if !ok {
		t.Fatal("not copied")
	}
	var got []string
	for _, e := range c.Entries {
		s := e.Rel
		switch {
		case e.Dir:
			s += "/"
		case e.Link != "":
			s += " -> " + e.Link
		case e.Executable:
			s += " *"
		}
		got = append(got, s)
	}
	if want := []string{"a.md *", "link.md -> ../elsewhere", "team/", "team/b.md", "wt/"}; !slices.Equal(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
	for i := range dirCopyEntries {
		testfs.Write(t, filepath.Join(dir, "many", strconv.Itoa(i)+".md"), "x\n")
	}
	if _, _, ok := dirCopy(dir); ok {
		t.Errorf("a directory over %d entries was copied", dirCopyEntries)
	}
}

// BenchmarkDirCopy reads 100 agents and commands of 2 KB each, as a
// launch does for their private copy.
func BenchmarkDirCopy(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "agents")
	for i := range 100 {
		testfs.Write(b, filepath.Join(dir, strconv.Itoa(i)+".md"), string(make([]byte, 2048)))
	}
	for b.Loop() {
		if _, _, ok := dirCopy(dir); !ok {
			b.Fatal("not copied")
		}
	}
}
