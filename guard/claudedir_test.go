package guard

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
)

// A .claude that exists in a directory down to two levels below the
// project (a monorepo's package) is guarded as the project's own, with
// private copies of the settings Claude Code saves; a missing one below
// the top gets no stand-in.
func TestFindSubdirectoryClaude(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "mono")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	testfs.Write(t, filepath.Join(proj, "packages", "app", ".claude", "settings.json"), "{}")
	testfs.Write(t, filepath.Join(proj, "tools", ".claude", "commands", "x.md"), "")
	testfs.Write(t, filepath.Join(proj, "packages", "lib", "index.js"), "")
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, _, _, _ := Find(home, project, nil, nil)
	byPath := map[string]mount.Guard{}
	for _, g := range guards {
		byPath[g.Path] = g
	}
	for _, dir := range []string{"packages/app/.claude", "tools/.claude"} {
		if g, ok := byPath[filepath.Join(proj, dir)]; !ok || !g.Exists || g.Copy {
			t.Errorf("%s: %+v, want a read-only guard", dir, g)
		}
	}
	if g := byPath[filepath.Join(proj, "packages", "app", ".claude", "settings.json")]; !g.Copy || !g.Exists {
		t.Errorf("packages/app/.claude/settings.json: %+v, want a private copy", g)
	}
	if _, ok := byPath[filepath.Join(proj, "packages", "lib", ".claude")]; ok {
		t.Error("a missing .claude below the project's top gets a stand-in")
	}
}
