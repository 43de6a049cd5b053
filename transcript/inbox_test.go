package transcript

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	exports := Exports{}
	sync := func(want int) []string {
		t.Helper()
		n, err := Sync(inbox, "demo", inst, exports, opt)
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

// TestSyncBesideUserFiles: the inbox's folder holds the user's own notes,
// and the sandbox names its sessions (their ids, titles and dates) so that
// an export's name ends as each note's does, or is one of them. The notes
// are never removed or written over, at the first export or when the
// sessions change; an export whose name a note holds goes beside it.
func TestSyncBesideUserFiles(t *testing.T) {
	inst, inbox := t.TempDir(), t.TempDir()
	dir := filepath.Join(inst, "-home-alice-code-demo")
	must(t, os.Mkdir(dir, 0o700))
	notes := map[string]string{
		"2025-11-28.md":                     "my notes\n",
		"standup-20251128.md":               "standup\n",
		"2026-11-20T10-00-00Z-plan-28.md":   "the name of an export\n",
		"2026-11-20T10-00-00Z-other-abc.md": "another\n",
	}
	must(t, os.MkdirAll(filepath.Join(inbox, "demo"), 0o700))
	for name, body := range notes {
		must(t, os.WriteFile(filepath.Join(inbox, "demo", name), []byte(body), 0o600))
	}
	turn := func(title string) string {
		return `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"` + title + `"}}` + "\n"
	}
	for _, id := range []string{"28", "20251128-0000-4000-8000-000000000001", "abc"} {
		must(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(turn("plan")), 0o600))
	}
	exports := Exports{}
	opt := Options{Detail: Tools, Root: "/home/alice/code/demo", Home: "/home/alice"}
	for round, title := range []string{"plan", "renamed"} {
		if round > 0 {
			later := time.Now().Add(time.Duration(round) * time.Minute)
			for _, id := range []string{"28", "20251128-0000-4000-8000-000000000001", "abc"} {
				p := filepath.Join(dir, id+".jsonl")
				must(t, os.WriteFile(p, []byte(turn(title)), 0o600))
				must(t, os.Chtimes(p, later, later))
			}
		}
		if n, err := Sync(inbox, "demo", inst, exports, opt); n != 3 || err != nil {
			t.Fatalf("round %d: Sync = %d, %v", round, n, err)
		}
		for name, body := range notes {
			if b, err := os.ReadFile(filepath.Join(inbox, "demo", name)); err != nil || string(b) != body {
				t.Errorf("round %d: the user's %s: %q, %v", round, name, b, err)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(inbox, "demo", "*"))
	if len(files) != len(notes)+3 {
		t.Errorf("the folder holds %q, want the notes and three exports", files)
	}
	if len(exports) != 3 {
		t.Errorf("the record names %v", exports)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSyncRemovesAbandonedRenders: a folder an export was rendered in by
// a process that is gone (a claudebox killed while it exported) goes at
// the next Sync; one of a running process (another session exporting)
// stays, and so do the user's own names.
func TestSyncRemovesAbandonedRenders(t *testing.T) {
	inbox, dir := t.TempDir(), t.TempDir()
	out := filepath.Join(inbox, "proj")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	dead := exportTemp + strconv.Itoa(gone.Process.Pid) + "-12"
	alive := exportTemp + strconv.Itoa(os.Getpid()) + "-34"
	for _, d := range []string{dead, alive, ".export-notes", exportTemp + "1x-2"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(out, dead, "export.md"), []byte("half"), 0o600)
	if _, err := Sync(inbox, "proj", dir, Exports{}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(out, dead)); err == nil {
		t.Errorf("%s outlived the next export", dead)
	}
	for _, d := range []string{alive, ".export-notes", exportTemp + "1x-2"} {
		if _, err := os.Lstat(filepath.Join(out, d)); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// TestSyncExportsBounded: the sandbox can leave transcripts by the
// hundred thousand (200,000 of one line each held a session's end 11
// minutes exporting them, its supervisor at 228 MiB, and made as many
// files in the inbox). One Sync exports the newest maxSyncExports; the
// next, the others.
func TestSyncExportsBounded(t *testing.T) {
	inst, inbox := t.TempDir(), t.TempDir()
	dir := filepath.Join(inst, "-home-alice-code-demo")
	os.Mkdir(dir, 0o700)
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"plan"}}` + "\n"
	base := time.Now().Add(-time.Hour)
	const extra = 5
	for i := range maxSyncExports + extra {
		path := filepath.Join(dir, fmt.Sprintf("%08x-0000-4000-8000-000000000001.jsonl", i))
		must(t, os.WriteFile(path, []byte(turn), 0o600))
		at := base.Add(time.Duration(i) * time.Second)
		must(t, os.Chtimes(path, at, at))
	}
	opt := Options{Detail: Tools, Root: "/home/alice/code/demo", Home: "/home/alice"}
	exports := Exports{}
	if n, err := Sync(inbox, "demo", inst, exports, opt); err != nil || n != maxSyncExports {
		t.Fatalf("first Sync = %d, %v; want %d written", n, err, maxSyncExports)
	}
	for _, id := range exports {
		if i, err := strconv.ParseInt(id, 16, 64); err != nil || i < extra {
			t.Errorf("the first Sync exported %s, want the newest sessions", id)
		}
	}
	if n, err := Sync(inbox, "demo", inst, exports, opt); err != nil || n != extra {
		t.Fatalf("second Sync = %d, %v; want the %d left", n, err, extra)
	}
	if files, _ := filepath.Glob(filepath.Join(inbox, "demo", "*.md")); len(files) != maxSyncExports+extra {
		t.Errorf("the inbox holds %d exports, want %d", len(files), maxSyncExports+extra)
	}
}
