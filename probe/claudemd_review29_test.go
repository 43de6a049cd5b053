package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// TestClaudeSetupProjectImportsNamedExist: the launch named every path
// the project's CLAUDE.md imports from outside it, one it does not have
// too: prose such as "the @/components folder" or an import of a file
// since deleted was named as not shown, yet Claude Code on the host reads
// nothing there either (it skips an import that is not a file). Only
// imports that are files on the host are named.
func TestClaudeSetupProjectImportsNamedExist(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for f, content := range map[string]string{
		"notes.md":           "notes\n",
		"adir/README":        "a folder\n",
		"code/app/CLAUDE.md": "Components live in the @/components folder.\n@~/notes.md\n@~/gone.md\n@~/adir\n@~/link.md\n",
	} {
		testfs.Write(t, filepath.Join(home, f), content)
	}
	if err := os.Symlink(filepath.Join(home, "notes.md"), filepath.Join(home, "link.md")); err != nil {
		t.Fatal(err)
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin"), nil, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil)
	var named []string
	for _, u := range h.Unshown {
		named = append(named, strings.Replace(u.Path, home, "~", 1))
	}
	if want := []string{"~/notes.md", "~/link.md"}; !slices.Equal(named, want) {
		t.Errorf("named as not shown: %q, want %q", named, want)
	}
}
