package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestScanEmptyAlternates: Claude Code's own sandbox, opened inside by
// /sandbox, makes an empty .git/objects/info/alternates (a file to mount
// over), which the end moved aside as a finding. An empty one names no
// object store and is not; one that names a store, and a FIFO there,
// are.
func TestScanEmptyAlternates(t *testing.T) {
	root := t.TempDir()
	env, _ := gitIn(t, root)
	for _, repo := range []string{"empty", "named", "fifo", "http"} {
		c := exec.Command("git", "init", "-q", filepath.Join(root, repo))
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	info := func(repo, name string) string { return filepath.Join(root, repo, ".git", "objects", "info", name) }
	must(t, os.WriteFile(info("empty", "alternates"), nil, 0o644))
	must(t, os.WriteFile(info("http", "http-alternates"), nil, 0o644))
	must(t, os.WriteFile(info("named", "alternates"), []byte("/elsewhere/objects\n"), 0o644))
	must(t, unix.Mkfifo(info("fifo", "alternates"), 0o644))
	r := Scan(root, since, nil, start, nil)
	want := []string{info("fifo", "alternates"), info("named", "alternates")}
	if slices.Sort(r.Found); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
