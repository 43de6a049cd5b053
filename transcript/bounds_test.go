package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestReadStopsAtMaxRecords: a transcript of four times maxRecords short
// lines, which the sandbox writes in a second (a million records held
// --list-sessions 35 s at 900 MiB), is read to maxRecords lines, whatever
// they hold, and no further than the reader's buffer past them.
func TestReadStopsAtMaxRecords(t *testing.T) {
	record := `{"uuid":"u","parentUuid":"u"}` + "\n"
	data := strings.Repeat(record, 4*maxRecords)
	r := &countingReader{r: strings.NewReader(data)}
	ix, err := read(r)
	if err != nil {
		t.Fatal(err)
	}
	if ix.lines != maxRecords || !ix.capped {
		t.Errorf("read %d lines (capped %v), want %d and capped", ix.lines, ix.capped, maxRecords)
	}
	if limit := int64(maxRecords*len(record) + 64<<10); r.n > limit {
		t.Errorf("read %d bytes of %d, want at most %d", r.n, len(data), limit)
	}
}

// TestListingReadsEachFileOnce: hard links cost the sandbox no disk; a
// transcript under 200 names was read 200 times by each listing. It is
// read once: the other names are listed with a note.
func TestListingReadsEachFileOnce(t *testing.T) {
	inst := t.TempDir()
	dir := filepath.Join(inst, "-p")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "aaaaaaaa-0000-4000-8000-000000000000.jsonl")
	if err := os.WriteFile(first, []byte(hostileRecord), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 200; i++ {
		if err := os.Link(first, filepath.Join(dir, fmt.Sprintf("aaaaaaaa-0000-4000-8000-%012d.jsonl", i))); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := Sessions(inst, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	read, others := 0, 0
	for _, s := range list {
		switch {
		case s.Note == "":
			read++
		case strings.Contains(s.Note, "another name of"):
			others++
		default:
			t.Errorf("%s: %s", s.ID, s.Note)
		}
	}
	if read != 1 || others != 199 {
		t.Errorf("%d read and %d noted as another name, want 1 and 199", read, others)
	}
}

// TestListingLinesBounded: what a listing reads is counted across its
// transcripts: past its lines, a transcript is listed unread, with a note.
func TestListingLinesBounded(t *testing.T) {
	inst := t.TempDir()
	for i, content := range []string{strings.Repeat(hostileRecord, 3), hostileRecord} {
		if err := os.WriteFile(filepath.Join(inst, fmt.Sprintf("t%d.jsonl", i)), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rd := &reading{left: 3, names: map[fileID]string{}}
	if s := describe(inst, "t0.jsonl", "t0", rd); s.Note != "" || rd.left != 0 {
		t.Errorf("the first transcript: %q, %d lines left, want it read and 0 left", s.Note, rd.left)
	}
	if s := describe(inst, "t1.jsonl", "t1", rd); !strings.Contains(s.Note, "not read") {
		t.Errorf("the second transcript, past the listing's lines: note %q, want not read", s.Note)
	}
}

// TestGeminiChatMessagesReadOnce: a chat whose messages' order alternates
// between two lines of $set-style message arrays (ids in one, every other
// id again in the other) had each message's line read and decoded again:
// a chat of 127 KB held --list-sessions 7.6 s, and one of a few MiB for
// days. Each message is read alone: what a listing allocates is a small
// multiple of the chat's size.
func TestGeminiChatMessagesReadOnce(t *testing.T) {
	inst := t.TempDir()
	chats := filepath.Join(inst, geminiChats, "p", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	var all, even bytes.Buffer
	for i := range 1000 {
		m := fmt.Sprintf(`{"id":"%d","type":"user","content":"prompt %d"}`, i, i)
		all.WriteString("," + m)
		if i%2 == 0 {
			even.WriteString("," + m)
		}
	}
	chat := `{"sessionId":"s","messages":[` + all.String()[1:] + "]}\n" +
		`{"sessionId":"s","messages":[` + even.String()[1:] + "]}\n"
	if err := os.WriteFile(filepath.Join(chats, "session-x.jsonl"), []byte(chat), 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	list, _, err := Sessions(inst, func(string) bool { return true })
	runtime.ReadMemStats(&after)
	if err != nil || len(list) != 1 || list[0].Turns != 1000 {
		t.Fatalf("listing the chat: %v, %+v, want one chat of 1,000 prompts", err, list)
	}
	if allocated, limit := after.TotalAlloc-before.TotalAlloc, uint64(64*len(chat)); allocated > limit {
		t.Errorf("listing a %d-byte chat allocated %d bytes, want at most %d", len(chat), allocated, limit)
	}
	var out bytes.Buffer
	if err := Export(&out, inst, filepath.Join(geminiChats, "p", "chats", "session-x.jsonl"), Options{Detail: Tools}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"prompt 0\n", "prompt 1\n", "prompt 999\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the export lacks %q", want)
		}
	}
}

// TestExportSubagentsBounded: the subagents an export renders are bounded
// in number and, all together, in lines: the sandbox can give a session
// any number, each a name of one long transcript (hard links).
func TestExportSubagentsBounded(t *testing.T) {
	inst := t.TempDir()
	session := func(name string) string {
		if err := os.MkdirAll(filepath.Join(inst, "-p", name, "subagents"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(inst, "-p", name+".jsonl"), []byte(`{"type":"user","uuid":"u","message":{"role":"user","content":"hi"}}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(inst, "-p", name, "subagents")
	}
	export := func(name string) string {
		var out bytes.Buffer
		if err := Export(&out, inst, filepath.Join("-p", name+".jsonl"), Options{Detail: Tools}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	// Eleven of a quarter of the lines one transcript may hold: four fill
	// them.
	long := session("long")
	line := `{"type":"assistant","uuid":"x","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"t"}]}}` + "\n"
	if err := os.WriteFile(filepath.Join(long, "agent-l.jsonl"), []byte(strings.Repeat(line, maxRecords/4)), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := os.Link(filepath.Join(long, "agent-l.jsonl"), filepath.Join(long, fmt.Sprintf("agent-l%d.jsonl", i))); err != nil {
			t.Fatal(err)
		}
	}
	if out := export("long"); strings.Count(out, "## Subagent ") != 4 || !strings.Contains(out, "7 more subagents were left out") {
		t.Errorf("%d subagents of 11 long ones rendered, want 4, the rest said left out", strings.Count(out, "## Subagent "))
	}
	// Empty ones, more than are listed.
	many := session("many")
	for i := range maxAgents + 5 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("agent-s%04d.jsonl", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out := export("many"); strings.Count(out, "## Subagent ") != maxAgents || !strings.Contains(out, "5 more subagents were left out") {
		t.Errorf("%d subagents of %d rendered, want %d, the rest said left out", strings.Count(out, "## Subagent "), maxAgents+5, maxAgents)
	}
}
