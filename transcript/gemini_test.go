package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/untrusted"
)

// geminiFixture is what the real Gemini CLI 0.61.0 wrote against a fake
// Code Assist API (a thought, a shell command whose output holds an
// escape sequence, an answer), its paths scrubbed to the fixtures' host.
const geminiFixture = "agents/gemini/tmp/demo/chats/session-2026-11-24T08-23-c5fdc26d.jsonl"

// TestGeminiGolden renders the Gemini fixture at each detail level, with
// and without thinking, and compares each with its golden file.
func TestGeminiGolden(t *testing.T) {
	for _, c := range []struct {
		opt    func(*Options)
		golden string
	}{
		{func(o *Options) { o.Detail = Tools }, "gemini-0.61.0.tools.md"},
		{func(o *Options) { o.Detail = Chat }, "gemini-0.61.0.chat.md"},
		{func(o *Options) { o.Detail = Full; o.Thinking = true }, "gemini-0.61.0.full.md"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			opt := fixtureOptions
			c.opt(&opt)
			var b bytes.Buffer
			if err := Export(&b, "testdata", geminiFixture, opt); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "session_context") {
				t.Errorf("the export holds an escape or gemini's own context:\n%s", b.String())
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
				t.Errorf("differs from %s (go test -u ./transcript updates it):\n%s", golden, b.String())
			}
		})
	}
}

// TestGeminiSessions: the chat is listed with the project's sessions, by
// an id made from its file's name, with its first prompt and turns.
func TestGeminiSessions(t *testing.T) {
	inst := t.TempDir()
	dir := filepath.Join(inst, filepath.Dir(geminiFixture))
	os.MkdirAll(dir, 0o700)
	b, _ := os.ReadFile(filepath.Join("testdata", geminiFixture))
	os.WriteFile(filepath.Join(inst, geminiFixture), b, 0o600)
	os.WriteFile(filepath.Join(dir, "session-x.y.jsonl"), b, 0o600) // a name it would not write out
	ss, err := allSessions(inst)
	if err != nil || len(ss) != 1 {
		t.Fatalf("%+v, %v", ss, err)
	}
	s := ss[0]
	if s.ID != "gemini-2026-11-24T08-23-c5fdc26d" || s.Agent != "gemini" || s.Title != "say pong" || s.Turns != 1 || s.Path != geminiFixture || s.Start.IsZero() {
		t.Errorf("%+v", s)
	}
}

// TestGeminiRewrites: a message written again under its id replaces it
// in place, $set messages replace them all, $rewindTo drops a message and
// those after it, as Gemini CLI loads a chat.
func TestGeminiRewrites(t *testing.T) {
	inst := t.TempDir()
	lines := []string{
		`{"sessionId":"s","projectHash":"h","startTime":"2026-11-24T08:00:00Z","lastUpdated":"2026-11-24T08:00:00Z","kind":"main"}`,
		`{"id":"gone","type":"user","content":"DROPPED-BY-SET"}`,
		`{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"FIRST"}]}]}}`,
		`{"id":"g1","type":"gemini","content":"OLD-ANSWER"}`,
		`{"id":"u2","type":"user","content":[{"text":"SECOND"}]}`,
		`{"id":"g1","type":"gemini","content":"NEW-ANSWER"}`,
		`{"id":"u3","type":"user","content":[{"text":"REWOUND"}]}`,
		`{"id":"g3","type":"gemini","content":"REWOUND-ANSWER"}`,
		`{"$rewindTo":"u3"}`,
		`not json`,
	}
	name := filepath.Join(geminiChats, "p", "chats", "session-a.jsonl")
	os.MkdirAll(filepath.Join(inst, filepath.Dir(name)), 0o700)
	os.WriteFile(filepath.Join(inst, name), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	var b bytes.Buffer
	if err := Export(&b, inst, name, Options{Detail: Tools}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first, answer, second := strings.Index(out, "FIRST"), strings.Index(out, "NEW-ANSWER"), strings.Index(out, "SECOND")
	if first < 0 || answer < first || second < answer || strings.Contains(out, "OLD-ANSWER") || strings.Contains(out, "REWOUND") || strings.Contains(out, "DROPPED") ||
		!strings.Contains(out, "1 lines of the chat were left out") {
		t.Errorf("export:\n%s", out)
	}
}

// TestGeminiExportReadsNoLink: a chat that is a symlink (to a file the
// host can read), one in a directory that is a link, and a FIFO are
// neither listed nor exported, and the FIFO does not hang.
func TestGeminiExportReadsNoLink(t *testing.T) {
	inst := t.TempDir()
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_ed25519")
	os.WriteFile(secret, []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	os.MkdirAll(filepath.Join(secretDir, "chats"), 0o700)
	os.WriteFile(filepath.Join(secretDir, "chats", "session-b.jsonl"), []byte(`{"id":"u","type":"user","content":"SECRET"}`+"\n"), 0o600)
	chats := filepath.Join(inst, geminiChats, "p", "chats")
	os.MkdirAll(chats, 0o700)
	os.Symlink(secret, filepath.Join(chats, "session-a.jsonl"))
	os.Symlink(secretDir, filepath.Join(inst, geminiChats, "linked"))
	if err := syscall.Mkfifo(filepath.Join(chats, "session-c.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ss, err := allSessions(inst); err != nil || len(ss) != 0 {
		t.Errorf("Sessions = %+v, %v; want none", ss, err)
	}
	for _, name := range []string{geminiChats + "/p/chats/session-a.jsonl", geminiChats + "/linked/chats/session-b.jsonl", geminiChats + "/p/chats/session-c.jsonl"} {
		var b bytes.Buffer
		err := Export(&b, inst, name, Options{Detail: Tools})
		if err == nil || strings.Contains(b.String(), "SECRET") {
			t.Errorf("Export of %s: %v, wrote %q; want it refused, unread", name, err, b.String())
		}
		if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.EXDEV) && !errors.Is(err, untrusted.ErrNotRegular) {
			t.Errorf("Export of %s: %v; want a link or a FIFO refused", name, err)
		}
	}
}

// TestGeminiExportInert: a chat carrying hostile text in every field the
// export shows (prompt, answer, thought, tool name, arguments, results,
// notices) holds nothing a viewer runs or loads, and no control character.
func TestGeminiExportInert(t *testing.T) {
	inst := t.TempDir()
	name := filepath.Join(geminiChats, "p", "chats", "session-a.jsonl")
	os.MkdirAll(filepath.Join(inst, filepath.Dir(name)), 0o700)
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, s := range append(hostileText, "see \\`<img src=\"http://evil.example/a.png\">`\n\n  ```\nx\n```\n<script>alert(1)</script>\n```") {
		lines := []string{
			`{"sessionId":"s","projectHash":"h","startTime":"2026-11-24T08:00:00Z"}`,
			`{"id":"u1","type":"user","content":[{"text":` + text(s) + `}]}`,
			`{"id":"g1","type":"gemini","model":` + text(s) + `,"content":` + text(s) + `,"thoughts":[{"subject":` + text(s) + `,"description":` + text(s) + `}],"toolCalls":[` +
				`{"name":"run_shell_command","args":{"command":` + text(s) + `,"description":` + text(s) + `},"status":"success","resultDisplay":` + text(s) + `},` +
				`{"name":"replace","args":{"file_path":` + text(s) + `,"old_string":` + text(s) + `,"new_string":"y"},"status":"error","result":[{"functionResponse":{"response":{"error":` + text(s) + `}}}]},` +
				`{"name":` + text(s) + `,"args":{"x":` + text(s) + `},"status":"success","result":[{"functionResponse":{"response":{"output":` + text(s) + `}}}]}]}`,
			`{"id":"i1","type":"error","content":` + text(s) + `}`,
		}
		os.WriteFile(filepath.Join(inst, name), []byte(strings.Join(lines, "\n")+"\n"), 0o600)
		for _, opt := range []Options{{Detail: Full, Thinking: true, NoRedact: true}, {Detail: Tools}} {
			var b bytes.Buffer
			if err := Export(&b, inst, name, opt); err != nil {
				t.Fatal(err)
			}
			if i := strings.IndexAny(b.String(), "\x1b\x07\u202e"); i >= 0 {
				t.Errorf("the export of a chat carrying %q holds a control character: %q", s, b.String()[max(0, i-200):i+20])
			}
			if p := viewerProblems(b.String()); p != nil {
				t.Errorf("the export of a chat carrying %q:\n%s\nwhich a viewer reads with: %s", s, b.String(), strings.Join(p, "; "))
			}
		}
	}
}
