package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// What git's configuration runs by its path in the work tree (a filter,
// a textconv, an alias, in the repository's config, a file it includes,
// or the user's) is guarded where it exists; a word of another key (a
// commit template), a missing file and an option are not.
func TestProbeGuardsGitConfigCommandFiles(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	testfs.Write(t, filepath.Join(proj, ".git", "config"), string(config)+
		"[filter \"strip\"]\n\tclean = sh tools/strip.sh --keep\n\tsmudge = cat\n[alias]\n\tlint = !./tools/lint && true\n"+
		"[commit]\n\ttemplate = tools/message\n[include]\n\tpath = drivers.inc\n")
	testfs.Write(t, filepath.Join(proj, ".git", "drivers.inc"), "[diff \"nb\"]\n\ttextconv = \"python3\" tools/nbconv.py\n")
	gitconfig := filepath.Join(home, ".gitconfig")
	testfs.Write(t, gitconfig, "[merge \"po\"]\n\tdriver = tools/pomerge %O %A %B\n")
	for _, f := range []string{"tools/strip.sh", "tools/lint", "tools/message", "tools/nbconv.py", "tools/pomerge", "--keep"} {
		testfs.Write(t, filepath.Join(proj, f), "cat\n")
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, _, _, _ := Find(home, project, []Obeyed{{Path: gitconfig, UserGitConfig: true, GitReads: true}}, nil)
	var guarded []string
	for _, g := range guards {
		guarded = append(guarded, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for f, want := range map[string]bool{"tools/strip.sh": true, "tools/lint": true, "tools/nbconv.py": true, "tools/pomerge": true, "tools/message": false, "--keep": false, "tools/missing": false} {
		if got := slices.Contains(guarded, f); got != want {
			t.Errorf("%s: guarded %v, want %v (guards %q)", f, got, want, guarded)
		}
	}
}
