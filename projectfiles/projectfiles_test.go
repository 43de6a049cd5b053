package projectfiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/internal/testfs"
)

// TestLookup: a name is found as written; in a directory that folds case,
// whatever its case, a prefix's and a suffix's too; not otherwise.
func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name string
		fold bool
		want string
	}{
		{".cursor", false, ".cursor"},
		{".CURSOR", false, ""},
		{".CURSOR", true, ".cursor"},
		{".Agents", true, ".agents"},
		{"LeftHook-local.yml", true, "lefthook"},
		{"LeftHook-local.yml", false, ""},
		{"AGENTS.md", true, ""},
		{"cursor", true, ""},
		{"app.code-workspace", false, ".code-workspace"},
		{"App.CODE-WORKSPACE", true, ".code-workspace"},
		{".code-workspace", false, ""},
	} {
		e, ok := Lookup(c.name, c.fold)
		if got := map[bool]string{true: e.Name}[ok]; got != c.want {
			t.Errorf("Lookup(%q, %v) = %q, want %q", c.name, c.fold, got, c.want)
		}
	}
}

// TestFoldsCase: a directory with the casefold attribute folds case, and
// .CURSOR made there is the .cursor the host's Cursor opens; an ordinary
// directory does not.
func TestFoldsCase(t *testing.T) {
	if FoldsCaseAt(t.TempDir()) {
		t.Errorf("an ordinary temporary directory is said to fold case")
	}
	dir := testfs.CasefoldDir(t)
	if !FoldsCaseAt(dir) {
		t.Errorf("%s, with the casefold attribute, is said not to fold case", dir)
	}
	if err := os.WriteFile(filepath.Join(dir, ".CURSOR"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cursor")); err != nil {
		t.Errorf(".CURSOR is not .cursor in a folding directory: %v", err)
	}
}
