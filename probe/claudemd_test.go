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

// TestImportPaths reads a CLAUDE.md's imports as Claude Code 2.1.330
// does: an @ at a word's start, an escaped space, a fragment cut; none in
// code, a code span or a comment; no mention, no e-mail address.
func TestImportPaths(t *testing.T) {
	text := "Read @~/notes/a.md and @./b\\ c.md#part, then @/abs/d.md.\n" +
		"@e.md\n" +
		"`@~/span.md` mail bob@example.com @@twice @#hash @/\n" +
		"<!-- @~/commented.md -->\n" +
		"```sh\n@~/fenced.md\n```\n" +
		"~~~\n```\n@~/fenced-too.md\n~~~\n" +
		"@~/after.md\n"
	got := importPaths([]byte(text))
	want := []string{"~/notes/a.md", "./b c.md", "/abs/d.md.", "e.md", "~/after.md"}
	if !slices.Equal(got, want) {
		t.Errorf("importPaths = %q, want %q", got, want)
	}
}

// TestClaudeSetupShowsImports: what ~/.claude/CLAUDE.md and the user's
// rules (~/.claude/rules) import from outside ~/.claude, and what that
// imports, is shown read-only; an import
// of a credential store is not, and is named; a file of the project is
// not read for its imports (the sandbox writes it), nor is a rule linked
// to one.
func TestClaudeSetupShowsImports(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	testfs.Write(t, filepath.Join(home, ".claude", "CLAUDE.md"), "@~/dotfiles/team.md\n@~/.aws/credentials\n@../code/app/NOTES.md\n")
	testfs.Write(t, filepath.Join(home, ".claude", "rules", "go", "style.md"), "@~/dotfiles/go-style.md\n")
	testfs.Write(t, filepath.Join(home, "dotfiles", "go-style.md"), "gofmt\n")
	testfs.Write(t, filepath.Join(home, "dotfiles", "team.md"), "@sub/more.md\n")
	testfs.Write(t, filepath.Join(home, "dotfiles", "sub", "more.md"), "more\n")
	testfs.Write(t, filepath.Join(home, ".aws", "credentials"), "[default]\n")
	testfs.Write(t, filepath.Join(proj, "NOTES.md"), "@~/private/diary.md\n")
	// A rule linked into the project, which the sandbox writes.
	if err := os.Symlink(filepath.Join(proj, "NOTES.md"), filepath.Join(home, ".claude", "rules", "project.md")); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, filepath.Join(home, "private", "diary.md"), "dear diary\n")
	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	h := Host(home, filepath.Join(home, ".claudebox"), project, "/usr/bin/true", env("HOME", home, "PATH", "/usr/bin"), nil, bind.StateDirs(home, []string{filepath.Join(home, ".claudebox")}), nil, nil, nil, nil)
	shown := map[string]bool{}
	for _, m := range h.Own {
		if m.Kind == mount.RoBind {
			shown[strings.TrimPrefix(m.Dest, home)] = true
		}
	}
	for _, want := range []string{"/dotfiles/team.md", "/dotfiles/sub/more.md", "/dotfiles/go-style.md"} {
		if !shown[want] {
			t.Errorf("%s not shown; shown: %v", want, shown)
		}
	}
	for _, never := range []string{"/.aws/credentials", "/private/diary.md"} {
		if shown[never] {
			t.Errorf("%s shown", never)
		}
	}
	var unshown []string
	for _, u := range h.Unshown {
		unshown = append(unshown, strings.ReplaceAll(u.String(), home, "~"))
	}
	if want := "~/.aws/credentials (an import of ~/.claude/CLAUDE.md): it lies in ~/.aws, which holds secrets"; !slices.Contains(unshown, want) {
		t.Errorf("not named: %q\nnamed: %q", want, unshown)
	}
}
