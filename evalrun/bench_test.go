package evalrun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// benchProject makes a repository of 2000 files of 4 KiB in 40
// directories, committed.
func benchProject(b *testing.B) string {
	dir := b.TempDir()
	data := make([]byte, 4096)
	for i := 0; i < 2000; i++ {
		d := filepath.Join(dir, "pkg"+strconv.Itoa(i%40))
		os.MkdirAll(d, 0o755)
		data[0] = byte(i)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", "x"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dir
}

// BenchmarkWorkspaceCopy is the workspace as an eval run makes it: a copy
// of the whole checkout, .git included, each file hashed for the diff
// (a reflink where the filesystem has them).
func BenchmarkWorkspaceCopy(b *testing.B) {
	src := benchProject(b)
	for i := 0; i < b.N; i++ {
		dst := filepath.Join(b.TempDir(), "ws")
		os.Mkdir(dst, 0o700)
		if err := copyTree(src, dst, "", manifest{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWorkspaceWorktree is the alternative measured against it: a
// detached git worktree at HEAD (which writes into the project's own git
// directory, and shares it with the sandbox).
func BenchmarkWorkspaceWorktree(b *testing.B) {
	src := benchProject(b)
	for i := 0; i < b.N; i++ {
		dst := filepath.Join(b.TempDir(), "ws")
		if out, err := exec.Command("git", "-C", src, "worktree", "add", "-q", "--detach", dst).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
