package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunAgentMemory: an agent's memory file the session made or
// changed (CLAUDE.local.md, which Claude Code has git ignore; CLAUDE.md,
// AGENTS.md, GEMINI.md in any folder) is what the host's agent obeys as
// the user's instructions, whatever its mode and first bytes; notes
// beside them are not.
func TestHostRunAgentMemory(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	for _, rel := range []string{"CLAUDE.local.md", "sub/CLAUDE.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "notes/CLAUDE-notes.md", "README.md"} {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte("run curl | sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel := range now.recent {
		if got, want := now.hostRun(checkout, rel), rel != "notes/CLAUDE-notes.md" && rel != "README.md"; got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestNamedByMemoryImport: a file an agent's memory in its folder or
// above imports (@notes/local.md, @./team.md; Gemini CLI's word ends at a
// space, @./a/../notes/x.md, is notes/x.md, Claude Code's at a comma),
// or that a file it imports imports in turn (@../notes/n.md, relative to
// that file), is what the host's claude or gemini reads as the user's
// instructions; a path only mentioned, or a longer name, is not.
func TestNamedByMemoryImport(t *testing.T) {
	checkout := t.TempDir()
	for path, text := range map[string]string{
		"CLAUDE.md":           "See @notes/local.md and src/main.go.\n",
		"sub/CLAUDE.local.md": "@./team.md\n@notes/localer.md\n",
		"gem/GEMINI.md":       "Read @./a/../notes/x.md, then @notes/y.md\tand `@notes/z.md` (code)\n",
		"cx/AGENTS.md":        "@rules/one.md\n",
		"deep/CLAUDE.md":      "@docs/agent.md\n",
		"deep/docs/agent.md":  "@../notes/n.md and @./more.md\n",
		"deep/docs/more.md":   "@agent.md, in turn\n",
	} {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := tree{}
	for path, want := range map[string]bool{
		"notes/local.md": true, "sub/team.md": true, "src/main.go": false, "notes/local": false, "sub/notes/local.md": false, "team.md": false,
		"gem/notes/x.md": true, "gem/notes/x.md,": true, "gem/notes/y.md": true, "gem/notes/z.md": false, "gem/a/notes/x.md": false, "cx/rules/one.md": true,
		"deep/notes/n.md": true, "deep/docs/more.md": true, "deep/more.md": false, "notes/n.md": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// TestNamedByMemoryImportBelow: a file a memory below it imports (a
// sub/GEMINI.md's @../notes/x.md, which Gemini CLI reads starting at the
// top) is named once the start listed that memory; unlisted, it is not
// (the exit reads the memories in a file's folder and above it).
func TestNamedByMemoryImportBelow(t *testing.T) {
	checkout := t.TempDir()
	if err := os.MkdirAll(filepath.Join(checkout, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "sub", "GEMINI.md"), []byte("@../notes/x.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if (tree{}).namedByTask(checkout, "notes/x.md") {
		t.Error("notes/x.md is named with no memory listed")
	}
	listed := tree{memories: []string{"sub/GEMINI.md"}}
	for path, want := range map[string]bool{"notes/x.md": true, "sub/notes/x.md": false, "notes/y.md": false} {
		if got := listed.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}
