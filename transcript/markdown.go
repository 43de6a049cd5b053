package transcript

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/claudebox/claudebox/printable"
)

// What makes a transcript's text safe to open in a Markdown viewer and to
// print on a terminal: no control character survives (an escape sequence
// would rewrite the terminal of whoever cats the file), no raw HTML (a
// viewer would run a <script> or load an <img>), no link but http(s) (a
// javascript: link runs when clicked), no image (it loads by itself and so
// can carry data out), and a fence always longer than what it holds.

// controls writes every control character but newline and tab as its Go
// escape, so it shows and does nothing.
func controls(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r != '\n' && r != '\t' && printable.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		for _, part := range strings.SplitAfter(body, "\t") {
			p, tab := strings.CutSuffix(part, "\t")
			b.WriteString(printable.Escape(p))
			if tab {
				b.WriteByte('\t')
			}
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// htmlEscape makes s inert as HTML: for a <summary> and for text outside
// code.
func htmlEscape(s string) string {
	if !strings.ContainsAny(s, "<>&") {
		return s
	}
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// fence is a code fence longer than any run of backticks in s.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// codeBlock is s in a fenced block of language lang.
func codeBlock(s, lang string) string {
	s = controls(strings.TrimRight(s, "\n"))
	f := fence(s)
	return f + lang + "\n" + s + "\n" + f + "\n"
}

// inlineCode is s, one line, as a code span.
func inlineCode(s string) string {
	s = controls(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// fenceOpen matches a line opening or closing a fenced code block.
var fenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")

// heading matches an ATX heading, which the text's own headings must not
// be at the level of the export's sections.
var heading = regexp.MustCompile(`^ {0,3}(#{1,6})(\s|$)`)

// refDefinition matches what could be a link reference definition,
// [label]: target, at a line's start or in a quote or a list item.
var refDefinition = regexp.MustCompile(`\]:\s*<?([^\s>]*)`)

// linkTarget finds the target of an inline link: ](target.
var linkTarget = regexp.MustCompile(`\]\(\s*<?([^)\s>]*)`)

// safeMarkdown renders text the transcript holds as Markdown (what Claude
// wrote, what the user typed) so it cannot do more than show: control
// characters escaped; raw HTML escaped outside code; links kept only to
// http(s); images turned into plain text; headings demoted below the
// export's own; a fence left open closed at the end.
func safeMarkdown(s string) string {
	s = controls(s)
	var b strings.Builder
	var open string // the fence that opened the current block, if any
	indent := 0     // the opening fence's indentation
	for _, line := range strings.Split(s, "\n") {
		// A fence opened in a list item ends with it, at a line indented
		// less: from there on the text is outside code again.
		if open != "" && strings.TrimSpace(line) != "" && len(line)-len(strings.TrimLeft(line, " ")) < indent {
			open = ""
		}
		if open != "" {
			b.WriteString(line + "\n")
			if m := fenceOpen.FindStringSubmatch(line); m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), m[1][:1])) == "" {
				open = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil && !(m[1][0] == '`' && strings.Contains(line[len(m[0]):], "`")) {
			open, indent = m[1], len(m[0])-len(m[1])
			b.WriteString(line + "\n")
			continue
		}
		if m := heading.FindStringSubmatchIndex(line); m != nil {
			level := min(6, m[3]-m[2]+2)
			line = line[:m[2]] + strings.Repeat("#", level) + line[m[3]:]
		}
		b.WriteString(safeLine(line) + "\n")
	}
	if open != "" {
		b.WriteString(open + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// safeLine makes one line outside a fenced block safe: code spans as they
// are, the rest HTML-escaped, with images and non-web links broken.
func safeLine(line string) string {
	var b strings.Builder
	for line != "" {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(safeText(line))
			break
		}
		b.WriteString(safeText(line[:i]))
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		ticks := line[i : i+n]
		rest := line[i+n:]
		end := closingTicks(rest, n)
		if end < 0 {
			// An unclosed run is literal text.
			b.WriteString(strings.Repeat("\\`", n))
			line = rest
			continue
		}
		b.WriteString(ticks + rest[:end] + ticks)
		line = rest[end+n:]
	}
	return b.String()
}

// closingTicks finds a run of exactly n backticks in s.
func closingTicks(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// safeText is text outside code: "<" and "&" escaped (no tag, no entity;
// ">" stays, it quotes), no image, links to http(s) only.
func safeText(s string) string {
	if strings.ContainsAny(s, "<&") {
		s = strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(s)
	}
	s = strings.ReplaceAll(s, "![", `!\[`)
	s = refDefinition.ReplaceAllStringFunc(s, func(m string) string {
		if webURL(refDefinition.FindStringSubmatch(m)[1]) {
			return m
		}
		return `]\:` + m[2:]
	})
	return linkTarget.ReplaceAllStringFunc(s, func(m string) string {
		if webURL(linkTarget.FindStringSubmatch(m)[1]) {
			return m
		}
		return `]\(` + m[2:]
	})
}

// webURL reports whether a link target is an http(s) URL.
func webURL(target string) bool {
	t := strings.ToLower(target)
	return strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "http://")
}

// quote renders s as a Markdown block quote.
func quote(s string) string {
	return "> " + strings.ReplaceAll(s, "\n", "\n> ")
}

// summaryText is s for a <summary> element: one line, HTML-escaped.
func summaryText(s string) string {
	s = strings.Join(strings.Fields(controls(s)), " ")
	return htmlEscape(clip(s, 120))
}

// cut keeps the head of a long result: at most maxLines lines and
// maxBytes bytes, and says what it left out.
func cut(s string, maxLines, maxBytes int) string {
	s = strings.TrimRight(s, "\n")
	end := len(s)
	if end > maxBytes {
		end = maxBytes
		for end > 0 && !utf8Start(s[end]) {
			end--
		}
	}
	lines := 0
	for i := 0; i < end; i++ {
		if s[i] == '\n' {
			lines++
			if lines == maxLines {
				end = i
				break
			}
		}
	}
	if end == len(s) {
		return s
	}
	rest := s[end:]
	return s[:end] + fmt.Sprintf("\n… %d more lines (%s) not shown", strings.Count(rest, "\n")+1, size(len(rest)))
}

func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
