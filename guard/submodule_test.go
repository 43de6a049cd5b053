package guard

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
)

// A submodule named in .gitmodules without a git directory yet gets a
// private stand-in at .git/modules/<name>; an initialised one keeps its own.
func TestProbeSubmoduleNotInitialised(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	testfs.Write(t, filepath.Join(proj, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = x\n[submodule \"vendor/tool\"]\n\tpath = third_party/tool\n\turl = y\n")
	testfs.Write(t, filepath.Join(proj, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, _, _, _ := Find(home, project, nil, nil)
	var paths []string
	for _, g := range guards {
		paths = append(paths, g.Path)
	}
	modules := filepath.Join(proj, ".git", "modules")
	for _, want := range []string{filepath.Join(modules, "vendor"), filepath.Join(modules, "third_party")} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s is not guarded: %q", want, paths)
		}
	}
	if slices.Contains(paths, filepath.Join(modules, "lib")) {
		t.Errorf("an initialised submodule's git dir is guarded whole")
	}
}
