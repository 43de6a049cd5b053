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
	"github.com/claudebox/claudebox/mount"
)

// TestClaudeSetupMemoryAboveProject: Claude Code reads CLAUDE.md,
// CLAUDE.local.md, .claude/CLAUDE.md and .claude/rules in every folder
// above the project (~/code/CLAUDE.md for all the user's projects), and
// what they import; none was shown, and Claude inside went without them,
// unsaid. They are shown read-only, as ~/.claude/CLAUDE.md's imports
// are. What the project's own CLAUDE.md imports from outside it
// (@~/notes.md, directly or through a file of the project) is not shown
// for it, as the sandbox writes it: it is named, unless shown anyway.
func TestClaudeSetupMemoryAboveProject(t *testing.T) {
	home, h := hostOfApp(t, map[string]string{
		"CLAUDE.md":                "home\n",
		"code/CLAUDE.md":           "@shared.md\n",
		"code/shared.md":           "shared\n",
		"code/CLAUDE.local.md":     "local\n",
		"code/.claude/CLAUDE.md":   "dot\n",
		"code/.claude/rules/go.md": "rule\n",
		"code/.claude/other.json":  "{}\n",
		"notes.md":                 "notes\n",
		"more.md":                  "more\n",
		"code/app/CLAUDE.md":       "@~/notes.md\n@docs/extra.md\n@../shared.md\n",
		"code/app/docs/extra.md":   "@~/more.md\n@../CLAUDE.md\n",
	}, nil)
	var shown []string
	for _, m := range h.Own {
		if m.Kind == mount.RoBind && !strings.HasPrefix(m.Dest, filepath.Join(home, ".claude")+"/") {
			shown = append(shown, strings.TrimPrefix(m.Dest, home))
		}
	}
	for _, want := range []string{"/CLAUDE.md", "/code/CLAUDE.md", "/code/shared.md", "/code/CLAUDE.local.md", "/code/.claude/CLAUDE.md", "/code/.claude/rules/go.md"} {
		if !slices.Contains(shown, want) {
			t.Errorf("~%s not shown; shown: %q", want, shown)
		}
	}
	for _, never := range []string{"/notes.md", "/more.md", "/code/.claude/other.json"} {
		if slices.Contains(shown, never) {
			t.Errorf("~%s shown", never)
		}
	}
	var unshown []string
	for _, u := range h.Unshown {
		unshown = append(unshown, strings.ReplaceAll(u.String(), home, "~"))
	}
	want := []string{
		"~/notes.md (an import of the project's CLAUDE.md): the sandbox writes the project, so what its CLAUDE.md imports from outside it is shown only when you bind it",
		"~/more.md (an import of the project's CLAUDE.md): the sandbox writes the project, so what its CLAUDE.md imports from outside it is shown only when you bind it",
	}
	if !slices.Equal(unshown, want) {
		t.Errorf("named as not shown:\n%q\nwant:\n%q", unshown, want)
	}
}

// TestClaudeSetupMemoryAboveProjectWrittenBySandbox: a folder above the
// checkout that a sandbox writes is not read for memory: the project's
// own root above a worktree made inside it, and another project's (an
// instance for it) holding this one. What their CLAUDE.md imports
// (~/diary.md) would be a session's choice; the folders above them are
// read.
func TestClaudeSetupMemoryAboveProjectWrittenBySandbox(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".claudebox")
	for f, content := range map[string]string{
		"code/CLAUDE.md":                     "code\n",
		"diary.md":                           "dear diary\n",
		"code/mono/CLAUDE.md":                "@~/diary.md\n",
		"code/mono/vendor/CLAUDE.md":         "@~/diary.md\n",
		"code/mono/vendor/lib/.wt/x/README":  "x\n",
		"code/mono/vendor/lib/.wt/CLAUDE.md": "@~/diary.md\n",
		"code/mono/vendor/lib/.wt/x/.git":    "gitdir: ../../.git/worktrees/x\n",
		// A linked worktree of another project, made by claudebox -w
		// beside it, has no instance of its own, yet that project's
		// sandboxes write it.
		"code/outer-task/.git":            "gitdir: ../outer/.git/worktrees/task\n",
		"code/outer-task/CLAUDE.local.md": "@~/diary.md\n",
		"code/outer-task/inner/README":    "inner\n",
	} {
		testfs.Write(t, filepath.Join(home, f), content)
	}
	testfs.Write(t, filepath.Join(instance.Dir(state, filepath.Join(home, "code", "mono")), "project-root"), filepath.Join(home, "code", "mono"))
	lib := filepath.Join(home, "code", "mono", "vendor", "lib")
	inner := filepath.Join(home, "code", "outer-task", "inner")
	for _, project := range []instance.Project{
		{Root: inner, Checkout: inner},
		{Root: lib, Checkout: lib},
		{Root: lib, Checkout: filepath.Join(lib, ".wt", "x"), GitDirs: []string{filepath.Join(lib, ".git")}},
	} {
		own, _, unshown, _, _, _ := claudeSetup(home, home, state, project, nil, bind.StateDirs(home, []string{state}), bind.Secrets(home), nil, nil, nil)
		var shown []string
		for _, o := range own {
			shown = append(shown, strings.TrimPrefix(o.Dest, home))
		}
		if want := []string{"/code/CLAUDE.md"}; !slices.Equal(shown, want) {
			t.Errorf("checkout %s: shown %q, want %q", project.Checkout, shown, want)
		}
		if len(unshown) > 0 {
			t.Errorf("checkout %s: named as not shown: %q", project.Checkout, unshown)
		}
	}
}

// hostOfApp is the probe's Host for the repository ~/code/app of a new
// home holding files and links (their paths relative to it, a link's
// target too), and that home.
func hostOfApp(t *testing.T, files, links map[string]string) (string, mount.Host) {
	t.Helper()
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for f, content := range files {
		testfs.Write(t, filepath.Join(home, f), content)
	}
	for link, target := range links {
		if err := os.Symlink(filepath.Join(home, target), filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, ".claudebox")
	return home, Host(home, state, project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin"), nil, bind.StateDirs(home, []string{state}), nil, nil, nil, nil)
}
