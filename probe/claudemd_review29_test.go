package probe

import (
	"slices"
	"strings"
	"testing"
)

// TestClaudeSetupProjectImportsNamedExist: the launch named every path
// the project's CLAUDE.md imports from outside it, one it does not have
// too: prose such as "the @/components folder" or an import of a file
// since deleted was named as not shown, yet Claude Code on the host reads
// nothing there either (it skips an import that is not a file). Only
// imports that are files on the host are named.
func TestClaudeSetupProjectImportsNamedExist(t *testing.T) {
	home, h := hostOfApp(t, map[string]string{
		"notes.md":           "notes\n",
		"adir/README":        "a folder\n",
		"code/app/CLAUDE.md": "Components live in the @/components folder.\n@~/notes.md\n@~/gone.md\n@~/adir\n@~/link.md\n",
	}, map[string]string{"link.md": "notes.md"})
	var named []string
	for _, u := range h.Unshown {
		named = append(named, strings.Replace(u.Path, home, "~", 1))
	}
	if want := []string{"~/notes.md", "~/link.md"}; !slices.Equal(named, want) {
		t.Errorf("named as not shown: %q, want %q", named, want)
	}
}
