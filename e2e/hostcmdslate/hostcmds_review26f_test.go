package hostcmdslate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
)

// TestReplayReview26MoveResumedCarriesInbox: --move renames the instance,
// then the inbox's record of what it exported, then writes the new root.
// Killed between the instance's rename and the root's, it left a project
// whose launch refused ("instance belongs to another project root") and
// whose --list said to run --move again, which refused too ("no instance
// of" the old root); and the resumed move wrote the root only, the inbox's
// record staying under the old hash. Host-side proof: with the instance
// renamed as such a kill leaves it, --move run again works, the next
// launch too, and the inbox's record is under the new root's hash.
func TestReplayReview26MoveResumedCarriesInbox(t *testing.T) {
	h := harness.NewHost(t)
	old := filepath.Join(h.Home, "proj")
	h.GitRepo(old)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"hi"}}`
	h.Inside(old, nil, `mkdir -p ~/.claude/projects/-p; echo '`+turn+`' > ~/.claude/projects/-p/20261130-0000-4000-8000-000000000001.jsonl`)
	state := filepath.Join(h.Home, ".claudebox")
	if _, err := os.Lstat(filepath.Join(state, instance.InboxRecords, instance.Hash(old))); err != nil {
		t.Fatalf("the session left no inbox record: %v", err)
	}
	moved := filepath.Join(h.Home, "work", "proj")
	harness.Must(t, os.MkdirAll(filepath.Dir(moved), 0o755))
	harness.Must(t, os.Rename(old, moved))
	// Killed right after renaming the instance.
	harness.Must(t, os.Rename(instance.Dir(state, old), instance.Dir(state, moved)))
	h.Chown()
	if out, err := h.Bounded(moved, "--move", old); err != nil {
		t.Errorf("--move run again: %v\n%s", err, out)
	}
	if out, err := h.Bounded(moved, "--shell", "-c", "true"); err != nil {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
	if _, err := os.Lstat(filepath.Join(state, instance.InboxRecords, instance.Hash(old))); err == nil {
		t.Error("the inbox's record stays under the old root's hash")
	}
	if _, err := os.Lstat(filepath.Join(state, instance.InboxRecords, instance.Hash(moved))); err != nil {
		t.Errorf("no inbox record under the new root's hash: %v", err)
	}
}
