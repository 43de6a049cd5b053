package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/untrusted"
)

// TestCodexGolden renders codex-0.169.0.jsonl, what the real codex-cli
// wrote in claudebox against the fake ChatGPT backend (a prompt, an exec
// tool call and its output, an answer planting an escape sequence and a
// <script>; TestExportCodex makes it), at each detail level.
func TestCodexGolden(t *testing.T) {
	for _, d := range []Detail{Chat, Tools, Full} {
		t.Run(string(d), func(t *testing.T) {
			opt := fixtureOptions
			opt.Detail = d
			var b bytes.Buffer
			if err := exportCodex(&b, "testdata", "codex-0.169.0.jsonl", opt); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "codex-0.169.0."+string(d)+".md")
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
			if p := viewerProblems(b.String()); p != nil {
				t.Errorf("a viewer reads it with: %s", strings.Join(p, "; "))
			}
		})
	}
}

// codexRollout is a rollout carrying s in every field the export shows.
func codexRollout(s string) string {
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return strings.Join([]string{
		`{"timestamp":"2026-11-24T08:00:00Z","type":"session_meta","payload":{"id":"01a20cb1-ae66-7711-b684-3e5c6ee785ae","cli_version":` + text(s) + `}}`,
		`{"timestamp":"2026-11-24T08:00:00Z","type":"turn_context","payload":{"model":` + text(s) + `}}`,
		`{"timestamp":"2026-11-24T08:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + text(s) + `}]}}`,
		`{"timestamp":"2026-11-24T08:00:02Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":` + text(s) + `}]}}`,
		`{"timestamp":"2026-11-24T08:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":` + text(s) + `,"input":` + text(s) + `,"call_id":` + text(s) + `}}`,
		`{"timestamp":"2026-11-24T08:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":` + text(s) + `,"output":[{"type":"input_text","text":` + text(s) + `}]}}`,
		`{"timestamp":"2026-11-24T08:00:03Z","type":"response_item","payload":{"type":"function_call","name":` + text(s) + `,"arguments":` + text(s) + `,"call_id":"c2"}}`,
		`{"timestamp":"2026-11-24T08:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":` + text(s) + `}}`,
		`{"timestamp":"2026-11-24T08:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + text(s) + `}]}}`,
	}, "\n") + "\n"
}

// TestCodexExportNeutralises: a rollout carrying hostile text (terminal
// escapes, HTML, script links, an image, unclosed fences; and random
// Markdown) in every field the export shows comes out with no control
// character and nothing a viewer runs or loads.
func TestCodexExportNeutralises(t *testing.T) {
	dir := t.TempDir()
	texts := append([]string(nil), hostileText...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(markdownTokens[rng.IntN(len(markdownTokens))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(codexRollout(s)), 0o600)
		var b bytes.Buffer
		if err := exportCodex(&b, dir, "r.jsonl", Options{Detail: Full, Thinking: true, NoRedact: true}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if p := viewerProblems(out); p != nil {
			t.Fatalf("the export of a rollout carrying %q:\n%s\nwhich a viewer reads with: %s", s, out, strings.Join(p, "; "))
		}
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Fatalf("the export of a rollout carrying %q holds a control character:\n%q", s, out)
		}
	}
}

// TestCodexReadsNoLink: in an instance, a rollout that is a symlink (to
// a key the host can read), one in a day directory that is a symlink, a
// FIFO, and a name Codex does not give are not listed, and the links and
// the FIFO are refused by the export, unread and without hanging.
func TestCodexReadsNoLink(t *testing.T) {
	inst := t.TempDir()
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_ed25519")
	os.WriteFile(secret, []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	day := filepath.Join(inst, codexSessionsDir, "2026", "11", "24")
	os.MkdirAll(day, 0o700)
	id := func(n string) string {
		return "rollout-2026-11-24T08-00-00-01a20cb1-ae66-7711-b684-3e5c6ee7850" + n + ".jsonl"
	}
	os.WriteFile(filepath.Join(day, id("1")), []byte(codexRollout("hello")), 0o600)
	os.Symlink(secret, filepath.Join(day, id("2")))
	if err := syscall.Mkfifo(filepath.Join(day, id("3")), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(day, "rollout-x.jsonl"), []byte(codexRollout("bad name")), 0o600)
	os.WriteFile(filepath.Join(secretDir, id("4")), []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	os.Symlink(secretDir, filepath.Join(inst, codexSessionsDir, "2026", "11", "25"))
	ss, err := allSessions(inst)
	if err != nil || len(ss) != 1 || ss[0].Agent != "codex" || ss[0].Title != "hello" || ss[0].Turns != 1 {
		t.Fatalf("Sessions = %+v, %v; want the one regular rollout", ss, err)
	}
	for _, name := range []string{id("2"), id("3")} {
		var b bytes.Buffer
		err := Export(&b, inst, codexSessionsDir+"/2026/11/24/"+name, Options{Detail: Tools})
		if err == nil || strings.Contains(b.String(), "SECRET") {
			t.Errorf("Export of %s: %v, wrote %q; want it refused, unread", name, err, b.String())
		}
		if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, untrusted.ErrNotRegular) {
			t.Errorf("Export of %s: %v; want a link or a FIFO refused", name, err)
		}
	}
	var b bytes.Buffer
	if err := Export(&b, inst, codexSessionsDir+"/2026/11/25/"+id("4"), Options{Detail: Tools}); err == nil || strings.Contains(b.String(), "SECRET") {
		t.Errorf("the export of a rollout in a linked directory: %v, %q", err, b.String())
	}
}

// TestCodexLongLine: a rollout with a line of 64 MiB, four times the
// longest record read, is exported with the line left out and noted, the
// records after it kept, and never held: the export allocates a few times
// its longest line.
func TestCodexLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rollout := codexRollout("hello")
	f.WriteString(rollout)
	f.Write(bytes.Repeat([]byte("x"), 4*maxLine))
	f.WriteString("\n" + codexRollout("after the long line"))
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var b bytes.Buffer
	if err := exportCodex(&b, dir, "r.jsonl", Options{Detail: Tools}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	out := b.String()
	for _, want := range []string{"> hello", "> after the long line", "1 lines of the rollout were left out"} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*maxLine {
		t.Errorf("the export allocated %d bytes for a 64 MiB line", alloc)
	}
}
