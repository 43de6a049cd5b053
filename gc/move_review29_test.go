package gc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/transcript"
)

// TestMergeInboxRecord: --move --merge dropped the old place's inbox
// record, and the new place's next export wrote the old sessions again
// beside their exports in the old folder (move_merge_inbox.txtar). It is
// added to the new place's record as merged, its own merged records with
// it; an older claudebox's record (the names alone) takes the old place's
// folder name; a merge killed after it and run again adds nothing twice.
func TestMergeInboxRecord(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, instance.InboxRecords)
	os.MkdirAll(dir, 0o700)
	const oldHash, newHash = "1111111111111111", "2222222222222222"
	os.WriteFile(filepath.Join(dir, oldHash), []byte(`{"a.md":"aaaaaaaa"}`), 0o600)
	os.WriteFile(filepath.Join(dir, newHash), []byte(`{"project":"new","exports":{"b.md":"bbbbbbbb"}}`), 0o600)
	for range 2 {
		if err := mergeInboxRecord(state, oldHash, newHash, "old"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(dir, oldHash)); err == nil {
			t.Errorf("the old place's record stayed")
		}
		// A kill before the old record's removal leaves both.
		os.WriteFile(filepath.Join(dir, oldHash), []byte(`{"a.md":"aaaaaaaa"}`), 0o600)
	}
	b, _ := os.ReadFile(filepath.Join(dir, newHash))
	r := transcript.ParseRecord(b)
	if r.Project != "new" || r.Exports["b.md"] != "bbbbbbbb" || len(r.Merged) != 1 || r.Merged[0].Project != "old" || r.Merged[0].Exports["a.md"] != "aaaaaaaa" {
		t.Errorf("merged record: %s", b)
	}
}
