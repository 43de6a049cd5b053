package unprivileged

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestDo: inside Do a mode-000 file cannot be read nor its mode changed
// by someone other than its owner, even as root; outside, root's privileges
// are back.
func TestDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked")
	if err := os.WriteFile(path, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	Do(t, func() {
		if _, err := os.ReadFile(path); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("read of a mode-000 file: %v", err)
		}
		if err := os.Chmod(other, 0o777); os.Geteuid() == 0 && !errors.Is(err, fs.ErrPermission) {
			t.Errorf("chmod of another user's file: %v", err)
		}
	})
	if os.Geteuid() == 0 {
		if _, err := os.ReadFile(path); err != nil {
			t.Errorf("root's privileges did not come back: %v", err)
		}
	}
}
