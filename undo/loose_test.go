package undo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A staged change's content, a loose object of the project's, is copied
// into the store: removed from the project after the snapshot, it is
// still restored. Both ways of finding it: looking up each of a few
// entries, reading the objects' directories past as many as they are.
func TestTakeKeepsLooseObjects(t *testing.T) {
	for _, files := range []int{2, 300} {
		p := repo(t, 1, files)
		path := filepath.Join(p.Checkout, "pkg0", "f1.go")
		os.WriteFile(path, []byte("staged\n"), 0o644)
		out, err := exec.Command("git", "-C", p.Checkout, "add", "pkg0/f1.go").CombinedOutput()
		if err != nil {
			t.Fatalf("git add: %v %s", err, out)
		}
		out, _ = exec.Command("git", "-C", p.Checkout, "rev-parse", ":pkg0/f1.go").Output()
		oid := strings.TrimSpace(string(out))
		state := t.TempDir()
		s, err := Take(context.Background(), state, p, time.Now(), time.Now().Add(time.Hour), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(p.GitDir, "objects", oid[:2], oid[2:])); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, []byte("the session's\n"), 0o644)
		res, err := Apply(state, p.Root, s, t.TempDir())
		if b, _ := os.ReadFile(path); err != nil || len(res.Failed) > 0 || string(b) != "staged\n" {
			t.Errorf("%d files: the staged content is not restored: %q, %v %v", files, b, res.Failed, err)
		}
	}
}
