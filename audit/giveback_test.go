package audit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGiveBack: of the directories the start recorded, only one still at
// its path, the same inode, closed since the start, is opened again; a
// directory made in another's place, one reached through a link the
// session left, one the user had closed before, and a stand-in stay as
// they are.
func TestGiveBack(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"closed", "remade", "linked/inner", "other", "own", "standin"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(filepath.Join(root, "own"), 0o500))
	t.Cleanup(func() {
		for _, d := range []string{"closed", "remade", "other/inner", "own", "standin"} {
			os.Chmod(filepath.Join(root, d), 0o755)
		}
	})
	// The session starts on a second of its own: status changes are
	// compared by the second, and the kernel's clock for them lags a tick.
	since := time.Now().Truncate(time.Second).Add(time.Second)
	start := Take(root, since, nil, nil)
	time.Sleep(time.Until(since) + 50*time.Millisecond)
	// The session: closes one, makes another in one's place and closes it,
	// moves linked/inner away, closed, and leaves a link to it instead.
	must(os.Chmod(filepath.Join(root, "closed"), 0o000))
	must(os.Remove(filepath.Join(root, "remade")))
	must(os.Mkdir(filepath.Join(root, "remade"), 0o000))
	must(os.Rename(filepath.Join(root, "linked", "inner"), filepath.Join(root, "other", "inner")))
	must(os.Remove(filepath.Join(root, "linked")))
	must(os.Symlink("other", filepath.Join(root, "linked")))
	must(os.Chmod(filepath.Join(root, "other", "inner"), 0o000))
	must(os.Chmod(filepath.Join(root, "standin"), 0o555))
	standIns := []string{filepath.Join(root, "standin")}
	if got := GiveBack(root, time.Now().Add(time.Hour), start, standIns); len(got) != 0 {
		t.Errorf("closed before the start, given back: %v", got)
	}
	got := GiveBack(root, since, start, standIns)
	if len(got) != 1 || got[0] != (Reopened{Path: filepath.Join(root, "closed"), Had: 0}) {
		t.Errorf("given back %v, want closed alone", got)
	}
	for d, want := range map[string]os.FileMode{"closed": 0o700, "remade": 0, "other/inner": 0, "own": 0o500, "standin": 0o555} {
		if fi, err := os.Lstat(filepath.Join(root, d)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v (%v), want %v", d, fi.Mode().Perm(), err, want)
		}
	}
}
