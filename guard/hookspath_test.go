package guard

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// The guards follow core.hooksPath as git reads it: on one line with its
// section, after a comment, and in a file an include names (under any
// condition). A .gitmodules git would refuse refuses the launch.
func TestProbeGuardsHooksPathAsGitReads(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	testfs.Write(t, filepath.Join(proj, ".git", "config"), string(config)+"[core] hooksPath = .team-hooks # shared\n[includeIf \"onbranch:x\"] path = team.inc\n")
	testfs.Write(t, filepath.Join(proj, ".git", "team.inc"), "[core]hooksPath=\".more\"-hooks")
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, _, refused, _ := Find(home, project, nil)
	var paths []string
	for _, g := range guards {
		paths = append(paths, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for _, want := range []string{".team-hooks", ".more-hooks", ".git/team.inc"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no guard on %s among %q", want, paths)
		}
	}
	if len(refused) != 0 {
		t.Errorf("refused: %v", refused)
	}

	testfs.Write(t, filepath.Join(proj, ".gitmodules"), "[submodule \"lib\"]\n\tpath = \"lib\n")
	_, _, _, refused, _ = Find(home, project, nil)
	var bad *gitconfig.Error
	if len(refused) != 1 || !errors.As(refused[0], &bad) || bad.Line != 2 {
		t.Errorf("a .gitmodules git refuses: %v", refused)
	}
}
