package transcript

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("u", false, "update the golden files")

// The fixtures' machine: claudebox's e2e host, scrubbed.
var fixtureOptions = Options{Root: "/home/alice/code/demo", Home: "/home/alice", Generator: "claudebox test"}

// TestGolden renders each fixture at each detail level and compares it
// with its golden file: claude-2.1.330.jsonl is what the real Claude Code
// wrote in claudebox against the fake API (export_test.go makes it);
// handmade.jsonl holds what the fake cannot produce (thinking, images, a
// branch abandoned by an edit, a compaction, a slash command, secrets).
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		fixture string
		opt     func(*Options)
		golden  string
	}{
		{"claude-2.1.330.jsonl", func(o *Options) { o.Detail = Tools }, "claude-2.1.330.tools.md"},
		{"claude-2.1.330.jsonl", func(o *Options) { o.Detail = Chat }, "claude-2.1.330.chat.md"},
		{"claude-2.1.330.jsonl", func(o *Options) { o.Detail = Full }, "claude-2.1.330.full.md"},
		{"handmade.jsonl", func(o *Options) { o.Detail = Tools }, "handmade.tools.md"},
		{"handmade.jsonl", func(o *Options) { o.Detail = Tools; o.Thinking = true }, "handmade.thinking.md"},
		{"handmade.jsonl", func(o *Options) { o.Detail = Tools; o.NoRedact = true }, "handmade.no-redact.md"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			opt := fixtureOptions
			c.opt(&opt)
			var b bytes.Buffer
			if err := Export(&b, "testdata", c.fixture, opt); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", c.golden)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from %s (go test -u ./transcript updates it):\n%s", c.fixture, golden, b.String())
			}
		})
	}
}

// TestSessions lists the fixtures' directory as an instance's
// path-named directory would be listed.
func TestSessions(t *testing.T) {
	inst := t.TempDir()
	dir := filepath.Join(inst, "-home-alice-code-demo")
	os.Mkdir(dir, 0o755)
	for _, f := range []string{"claude-2.1.330.jsonl", "handmade.jsonl"} {
		b, _ := os.ReadFile(filepath.Join("testdata", f))
		id := map[string]string{"claude-2.1.330.jsonl": "0b1d9f6e-0000-4000-8000-000000000001", "handmade.jsonl": "0b1d9f6e-0000-4000-8000-000000000002"}[f]
		os.WriteFile(filepath.Join(dir, id+".jsonl"), b, 0o600)
	}
	// Not sessions: a name that is no id, a link, a directory.
	os.WriteFile(filepath.Join(dir, "x;rm -rf ~.jsonl"), []byte("{}\n"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "0b1d9f6e-0000-4000-8000-000000000003.jsonl"))
	os.Mkdir(filepath.Join(dir, "0b1d9f6e-0000-4000-8000-000000000004.jsonl"), 0o755)
	ss, err := allSessions(inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 {
		t.Fatalf("Sessions = %+v, want the two fixtures", ss)
	}
	// Oldest first; a slash command counts as a turn, the abandoned
	// branch's prompt and the compaction summary do not.
	if s := ss[0]; s.Title != "Refactor the cache" || s.Turns != 4 || !strings.HasPrefix(s.FirstPrompt, "Please add a cache") {
		t.Errorf("the handmade session: %+v", s)
	}
	if s := ss[1]; s.Title != "update the notes" || s.Turns != 2 || s.Start.IsZero() {
		t.Errorf("the real session: %+v", s)
	}
}

// allSessions lists every session of the instance inst.
func allSessions(inst string) ([]Session, error) {
	ss, _, err := Sessions(inst, func(string) bool { return true })
	return ss, err
}

// TestSessionsBounded reads only the MaxListed transcripts written last,
// counting the others, and matches an id by name before reading: the
// sandbox can leave transcripts by the hundred thousand.
func TestSessionsBounded(t *testing.T) {
	inst := t.TempDir()
	dir := filepath.Join(inst, "-planted")
	os.Mkdir(dir, 0o755)
	old := time.Now().Add(-time.Hour)
	write := func(id, prompt string, when time.Time) {
		rec := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"` + prompt + `"}}` + "\n"
		os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(rec), 0o600)
		os.Chtimes(filepath.Join(dir, id+".jsonl"), when, when)
	}
	write("aaaaaaaa-0000-4000-8000-000000000001", "the real plan", old)
	for i := range MaxListed + 4 {
		write(fmt.Sprintf("%08d-0000-4000-8000-000000000001", i), "planted", time.Now())
	}
	ss, unread, err := Sessions(inst, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != MaxListed || unread != 5 {
		t.Errorf("Sessions read %d and left %d, want %d and 5", len(ss), unread, MaxListed)
	}
	for _, s := range ss {
		if s.FirstPrompt == "the real plan" {
			t.Errorf("Sessions read the oldest transcript among the newest %d", MaxListed)
		}
	}
	ss, unread, err = Sessions(inst, func(id string) bool { return strings.HasPrefix(id, "aaaa") })
	if err != nil || len(ss) != 1 || unread != 0 || ss[0].FirstPrompt != "the real plan" {
		t.Errorf("Sessions of an older id = %+v, %d, %v; want it alone", ss, unread, err)
	}
}

// TestWrittenSince names the transcript written last since the launch, and
// nothing that is not one: a link, a name that is no id, an older file,
// one the launch found as it is, one the session's Claude did not name.
func TestWrittenSince(t *testing.T) {
	inst := t.TempDir()
	dir := filepath.Join(inst, "-home-alice-code-demo")
	os.Mkdir(dir, 0o755)
	start := time.Now().Add(-time.Hour)
	at := func(name string, when time.Time) {
		os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o600)
		os.Chtimes(filepath.Join(dir, name), when, when)
	}
	if _, ok := WrittenSince(inst, start, nil, nil); ok {
		t.Fatal("WrittenSince found a session in an empty instance")
	}
	at("0b1d9f6e-0000-4000-8000-000000000001.jsonl", start.Add(-time.Minute))
	if id, ok := WrittenSince(inst, start, nil, nil); ok {
		t.Fatalf("WrittenSince = %q, a transcript older than the launch", id)
	}
	at("0b1d9f6e-0000-4000-8000-000000000002.jsonl", start.Add(time.Minute))
	at("0b1d9f6e-0000-4000-8000-000000000003.jsonl", start.Add(2*time.Minute))
	at("$(touch pwned).jsonl", start.Add(3*time.Minute))
	os.Symlink("/etc/passwd", filepath.Join(dir, "0b1d9f6e-0000-4000-8000-000000000004.jsonl"))
	if id, _ := WrittenSince(inst, start, nil, nil); id != "0b1d9f6e-0000-4000-8000-000000000003" {
		t.Errorf("WrittenSince = %q, want the session written last", id)
	}
	if id, _ := WrittenSince(inst, start, Times(inst), nil); id != "" {
		t.Errorf("WrittenSince = %q, a transcript as the launch found it", id)
	}
	// Another session of the project wrote 3 last: this one's Claude
	// named 2.
	ours := func(id string) bool { return id == "0b1d9f6e-0000-4000-8000-000000000002" }
	if id, _ := WrittenSince(inst, start, nil, ours); id != "0b1d9f6e-0000-4000-8000-000000000002" {
		t.Errorf("WrittenSince = %q, want the session's own", id)
	}
}
