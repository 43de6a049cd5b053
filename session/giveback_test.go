package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claudebox/claudebox/audit"
)

// TestRootGivenBack: a checkout root whose status changed since the
// sessions began, closed, is opened for its owner and named with the mode
// it was left; one its owner closed before they began is left as it is.
func TestRootGivenBack(t *testing.T) {
	root := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(root, 0o755) })
	mode := func() os.FileMode {
		fi, err := os.Lstat(root)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if got := rootGivenBack(root, time.Now().Add(time.Hour)); got != nil || mode() != 0o555 {
		t.Errorf("a root closed before the sessions began: given back %v, mode %o, want none, 555", got, mode())
	}
	got := rootGivenBack(root, time.Now().Add(-time.Hour))
	if len(got) != 1 || got[0] != (audit.Reopened{Path: root, Had: 0o555}) || mode() != 0o755 {
		t.Errorf("a root closed since the sessions began: given back %v, mode %o, want it with 555, 755", got, mode())
	}
}
