package probe

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRuntimeDir: the runtime directory is used when it is a directory
// the user owns and alone may enter, and not when it is unset, relative,
// open to others, a link or gone.
func TestRuntimeDir(t *testing.T) {
	private := t.TempDir()
	os.Chmod(private, 0o700)
	open := t.TempDir()
	os.Chmod(open, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(private, link)
	for dir, want := range map[string]string{
		private:           private,
		"":                "",
		"run/user":        "",
		open:              "",
		link:              "",
		private + "/gone": "",
	} {
		getenv := func(string) string { return dir }
		if got := RuntimeDir(getenv); got != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: %q, want %q", dir, got, want)
		}
	}
}
