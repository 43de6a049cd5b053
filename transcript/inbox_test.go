package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSync: a session is exported once into the inbox, not again while it
// is unchanged, and when it changes (its title too) its export is
// replaced, not duplicated.
func TestSync(t *testing.T) {
	inst, inbox := t.TempDir(), t.TempDir()
	dir := filepath.Join(inst, "-home-alice-code-demo")
	os.Mkdir(dir, 0o700)
	transcriptPath := filepath.Join(dir, "0b1d9f6e-0000-4000-8000-000000000001.jsonl")
	first := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"fix ../../the build; now"}}` + "\n"
	os.WriteFile(transcriptPath, []byte(first), 0o600)
	// Not a conversation yet: left out.
	os.WriteFile(filepath.Join(dir, "0b1d9f6e-0000-4000-8000-000000000002.jsonl"), []byte("{}\n"), 0o600)
	opt := Options{Detail: Tools, Root: "/home/alice/code/demo", Home: "/home/alice"}
	sync := func(want int) []string {
		t.Helper()
		n, err := Sync(inbox, "demo", inst, opt)
		if err != nil || n != want {
			t.Fatalf("Sync = %d, %v; want %d written", n, err, want)
		}
		files, _ := filepath.Glob(filepath.Join(inbox, "demo", "*"))
		return files
	}
	files := sync(1)
	if len(files) != 1 || filepath.Base(files[0]) != "2026-11-20T10-00-00Z-fix-the-build-now-0b1d9f6e.md" {
		t.Fatalf("inbox: %v", files)
	}
	sync(0)
	later := time.Now().Add(time.Minute)
	f, _ := os.OpenFile(transcriptPath, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"ai-title","aiTitle":"Build fix"}` + "\n")
	f.Close()
	os.Chtimes(transcriptPath, later, later)
	files = sync(1)
	if len(files) != 1 || filepath.Base(files[0]) != "2026-11-20T10-00-00Z-build-fix-0b1d9f6e.md" {
		t.Fatalf("inbox after the title came: %v, want the one export renamed", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), `title: "Build fix"`) {
		t.Errorf("the export:\n%s", b)
	}
}
