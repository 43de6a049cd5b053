package audit

import (
	"slices"
	"testing"
)

// TestEnvrcPathDirsCommandPwd: `export PATH="$(pwd)/bin:$PATH"`, the
// common way to put a project's bin first, split at its parentheses and
// gave no directory, only "unspelled", under which a tracked or new bin/git
// the session wrote was no finding.
func TestEnvrcPathDirsCommandPwd(t *testing.T) {
	root := t.TempDir()
	for _, envrc := range []string{
		"export PATH=\"$(pwd)/bin:$PATH\"\n",
		"PATH_add \"$(pwd)/bin\"\n",
		"PATH_add $(pwd)/bin\n",
		"PATH+=\":$PWD/bin\"\n",
	} {
		dirs, _ := envrcPathDirs(envrc, root)
		if !slices.Equal(dirs, []string{"bin"}) {
			t.Errorf("envrcPathDirs(%q): %q, want [bin]", envrc, dirs)
		}
	}
}
