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
	guards, _, _, refused, _ := Find(home, project, nil, nil)
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
	_, _, _, refused, _ = Find(home, project, nil, nil)
	var bad *gitconfig.Error
	if len(refused) != 1 || !errors.As(refused[0], &bad) || bad.Line != 2 {
		t.Errorf("a .gitmodules git refuses: %v", refused)
	}
}

// TestProbeGuardsLinkTargets: a hook that is a link (in .git/hooks, or in a
// core.hooksPath directory) into the work tree has what it leads to
// guarded, relative or absolute, as has a link in a guarded directory of
// the registry's (.vscode/tasks.json, .claude/commands/team, levels
// down); one leading outside the project is not the project's to guard,
// and one through a link in the project is refused, as the sandbox could
// repoint it.
func TestProbeGuardsLinkTargets(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	testfs.Write(t, filepath.Join(proj, ".git", "config"), string(config)+"[core]\n\thooksPath = .githooks\n")
	testfs.Write(t, filepath.Join(proj, "scripts", "pre-commit"), "#!/bin/sh\n")
	testfs.Write(t, filepath.Join(proj, "tools", "post-commit"), "#!/bin/sh\n")
	testfs.Write(t, filepath.Join(proj, "real", "pre-push"), "#!/bin/sh\n")
	testfs.Write(t, filepath.Join(home, "elsewhere"), "#!/bin/sh\n")
	if err := os.Symlink("real", filepath.Join(proj, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, ".githooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../scripts/pre-commit", filepath.Join(proj, ".git", "hooks", "pre-commit")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(proj, "tools", "post-commit"), filepath.Join(proj, ".git", "hooks", "post-commit")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "elsewhere"), filepath.Join(proj, ".git", "hooks", "pre-rebase")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../linked/pre-push", filepath.Join(proj, ".githooks", "pre-push")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(proj, "config", "tasks.json"), "{}")
	testfs.Write(t, filepath.Join(proj, "shared", "commands", "x.md"), "x")
	testfs.Write(t, filepath.Join(proj, ".claude", "commands", "own.md"), "x")
	if err := os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../config/tasks.json", filepath.Join(proj, ".vscode", "tasks.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../shared/commands", filepath.Join(proj, ".claude", "commands", "team")); err != nil {
		t.Fatal(err)
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	guards, _, symlinks, _, _ := Find(home, project, nil, nil)
	var paths []string
	for _, g := range guards {
		paths = append(paths, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for _, want := range []string{"scripts/pre-commit", "tools/post-commit", "config/tasks.json", "shared/commands"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no guard on the hook's target %s among %q", want, paths)
		}
	}
	if slices.ContainsFunc(paths, func(p string) bool { return strings.Contains(p, "elsewhere") || strings.Contains(p, "real") }) {
		t.Errorf("guarded beyond the project or through a link: %q", paths)
	}
	if !slices.Contains(symlinks, filepath.Join(proj, "linked")) {
		t.Errorf("the link on the way to a hook is not refused: %q", symlinks)
	}
}
