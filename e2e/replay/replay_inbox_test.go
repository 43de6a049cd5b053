package replay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayInboxBesideUserNotes: the user's inbox folder for the project
// (export-dir) holds their own notes, 2025-11-28.md and
// standup-20251128.md, and one named as an export would be. The session
// writes transcripts whose ids (the sandbox's to choose) end those names
// as an export's session id does, and whose title and date make an
// export's name the third note's. Host-side proof: after the session's
// export, each note holds what the user wrote, and the exports stand
// beside them.
func TestReplayInboxBesideUserNotes(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	notes := map[string]string{
		"2025-11-28.md":                   "my notes\n",
		"standup-20251128.md":             "standup\n",
		"2026-11-20T10-00-00Z-plan-28.md": "the user's plan\n",
	}
	folder := filepath.Join(h.Home, "notes", "demo")
	for name, body := range notes {
		h.Write(filepath.Join(folder, name), body)
	}
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"plan"}}`
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		for id in 28 20251128-0000-4000-8000-000000000001; do
			echo '`+turn+`' > $d/$id.jsonl
		done
	`)
	for name, body := range notes {
		if b, err := os.ReadFile(filepath.Join(folder, name)); err != nil || string(b) != body {
			t.Errorf("the user's %s after the session's export: %q, %v", name, b, err)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(folder, "*.md")); len(files) != len(notes)+2 {
		t.Errorf("the folder holds %q, want the notes and two exports", files)
	}
}
