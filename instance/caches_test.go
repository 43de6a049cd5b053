package instance

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEnsureCachesSandboxEntries: the sandbox sees the project's caches'
// directory whole (one bind, each cache a link into it), so what stands
// at a cache's name there may be the sandbox's: a file or a link there
// is left as it is, without a word, and never keeps the next launch from
// starting; a missing cache is made.
func TestEnsureCachesSandboxEntries(t *testing.T) {
	state, root := t.TempDir(), "/p"
	dir := CachesDir(state, root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "npm"), []byte("the sandbox's"), 0o600)
	os.Symlink("/etc", filepath.Join(dir, "go-mod"))
	if err := EnsureCaches(state, root, []string{"cache", "go-mod", "npm"}); err != nil {
		t.Fatalf("EnsureCaches: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "cache")); err != nil || !fi.IsDir() {
		t.Errorf("the missing cache was not made: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "npm")); string(b) != "the sandbox's" {
		t.Errorf("the sandbox's file became %q", b)
	}
	if target, _ := os.Readlink(filepath.Join(dir, "go-mod")); target != "/etc" {
		t.Errorf("the sandbox's link became %q", target)
	}
}
