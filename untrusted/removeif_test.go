package untrusted

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRemoveIfHostSaves: RemoveIf removes the entry it judged, and leaves
// in its place a file the host renamed over the name after the judgement
// (an editor's save), on a filesystem with RENAME_NOREPLACE and on one
// without it (an NFS mount), where it renames plainly once nothing is at
// the name; nothing is left under the aside name.
func TestRemoveIfHostSaves(t *testing.T) {
	for _, noReplace := range []bool{true, false} {
		if !noReplace {
			renameat2 = func(od int, from string, nd int, to string, flags uint) error {
				if flags&unix.RENAME_NOREPLACE != 0 {
					return unix.EINVAL
				}
				return unix.Renameat2(od, from, nd, to, flags)
			}
		}
		dir := t.TempDir()
		x := filepath.Join(dir, "x")
		if err := os.WriteFile(x, nil, 0); err != nil {
			t.Fatal(err)
		}
		removed, err := RemoveIf(dir, "x", func(fs.FileInfo, *os.File) bool { return true })
		if err != nil || !removed {
			t.Errorf("NOREPLACE %v: the judged entry: removed %v, %v", noReplace, removed, err)
		}
		if err := os.WriteFile(x, nil, 0); err != nil {
			t.Fatal(err)
		}
		removed, err = RemoveIf(dir, "x", func(fs.FileInfo, *os.File) bool {
			os.WriteFile(x+".save", []byte("the user's"), 0o644)
			os.Rename(x+".save", x)
			return true
		})
		if b, _ := os.ReadFile(x); removed || string(b) != "the user's" {
			t.Errorf("NOREPLACE %v: the host's save: removed %v (%v), left %q", noReplace, removed, err, b)
		}
		names, _ := os.ReadDir(dir)
		for _, e := range names {
			if strings.HasPrefix(e.Name(), AsidePrefix) {
				t.Errorf("NOREPLACE %v: %s left", noReplace, e.Name())
			}
		}
		renameat2 = unix.Renameat2
	}
}
