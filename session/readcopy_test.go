package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// TestReadCopyReplacedHint: a copy whose file was replaced after the probe
// checked it is refused, and the hint names who could have: a sandbox for a
// file in the home, the system for its configuration, which no sandbox
// writes.
func TestReadCopyReplacedHint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "passwd")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	checked := untrusted.IDOf(fi)
	// Replaced as a package manager does: a new file renamed into place.
	if err := os.WriteFile(path+".new", []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind mount.Kind
		says string
	}{
		{mount.File, "the system replaced it"},
		{mount.BindData, "a sandbox that can write it"},
	} {
		_, err := readCopy(mount.Mount{Kind: c.kind, Src: path, Checked: checked})
		if err == nil || !strings.Contains(err.Error()+hint.Of(err), c.says) {
			t.Errorf("kind %s: %v, want a hint saying %q", c.kind, err, c.says)
		}
	}
}
