package transcript

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/claudebox/claudebox/printable"
)

// What makes a transcript's text safe to open in a Markdown viewer and to
// print on a terminal: no control character survives (an escape sequence
// would rewrite the terminal of whoever cats the file), no raw HTML (a
// viewer would run a <script> or load an <img>), no link but http(s) (a
// javascript: link runs when clicked), no image (it loads by itself and so
// can carry data out).
//
// None of it rests on reading the transcript's Markdown as a viewer would:
// claudebox writes every code block itself, with a fence longer than any
// backtick run inside, and outside those blocks no "<" of the transcript's
// is left unescaped, not even in what looks like code, so whatever a viewer
// takes for a code span or a fence, the only HTML it finds is claudebox's
// own tags. A code span is kept as one only when its text would be as
// harmless read as text; else it becomes a <code> element, escaped.

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

// fence is a code fence longer than any run of backticks in s: no line of
// s can close it.
func fence(s string) string {
	return strings.Repeat("`", max(3, longestRun(s, '`')+1))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// codeBlock is s in a fenced block of language lang.
func codeBlock(s, lang string) string {
	s = controls(strings.TrimRight(s, "\n"))
	f := fence(s)
	return f + lang + "\n" + s + "\n" + f + "\n"
}

// inlineCode is s, one line, as inline code.
func inlineCode(s string) string {
	return codeSpan(strings.ReplaceAll(controls(s), "\n", " "))
}

// codeSpan is s as inline code: a Markdown code span when s would be as
// harmless read as text (a viewer that sees no span there shows it as
// text), else a <code> element with s escaped, which shows the same.
func codeSpan(s string) string {
	if !inert(s) {
		if len(s) > 2 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.TrimSpace(s) != "" {
			s = s[1 : len(s)-1]
		}
		return "<code>" + codeEscaper.Replace(s) + "</code>"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// codeEscaper makes text inside a <code> element show as it is: no tag or
// entity, no emphasis, code span, link or image.
var codeEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "~", "\\~")

// inert reports whether s, read as Markdown text, holds no HTML, no image
// and no link but to http(s).
func inert(s string) bool {
	return !strings.Contains(s, "<") && !strings.Contains(s, "![") && !unsafeLink(s)
}

// unsafeLink reports whether s holds a link target, inline or in a
// reference definition, that is not http(s).
func unsafeLink(s string) bool {
	for _, re := range []*regexp.Regexp{linkTarget(), refDefinition()} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if !webURL(m[1]) {
				return true
			}
		}
	}
	return false
}

// compiled is expr, compiled on first use: the expressions here serve an
// export, and each of claudebox's processes (the supervisor, its guard
// watcher, the network relay) would otherwise compile them as it starts.
func compiled(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// fenceLine matches a line that opens or closes a fenced code block in the
// transcript's text, at any indentation (in a list item, deeper than a
// viewer takes it): the indentation, the fence, the info string.
var fenceLine = compiled("^( *)(`{3,}|~{3,})(.*)$")

// listItem matches a list item's first line.
var listItem = compiled(`^ *([-+*]|[0-9]{1,9}[.)])( |$)`)

// heading matches an ATX heading, which the text's own headings must not
// be at the level of the export's sections.
var heading = compiled(`^ {0,3}(#{1,6})(\s|$)`)

// refDefinition matches what could be a link reference definition,
// [label]: target, at a line's start or in a quote or a list item. A
// target ends at a "]", so that the next one is matched too.
var refDefinition = compiled(`\]:\s*<?([^\s>\]]*)`)

// linkTarget finds the target of an inline link: ](target.
var linkTarget = compiled(`\]\(\s*<?([^)\s>\]]*)`)

// safeMarkdown renders text the transcript holds as Markdown (what Claude
// wrote, what the user typed) so it cannot do more than show: control
// characters escaped; each code block the text opens written again by
// claudebox in a fence of its own; all else through safeLine; headings
// demoted below the export's own. How the text's blocks are read only
// decides how it looks: what claudebox does not fence is escaped.
func safeMarkdown(s string) string {
	lines := strings.Split(controls(s), "\n")
	var out []string
	blank := func() {
		if len(out) > 0 && strings.Trim(out[len(out)-1], " \t") != "" {
			out = append(out, "")
		}
	}
	inList := false // the text before is a list item, which a fence in it ends with
	fenced := false // the last line out closes a fence of claudebox's
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		m := fenceLine().FindStringSubmatch(line)
		if m == nil || m[2][0] == '`' && strings.Contains(m[3], "`") {
			if strings.TrimSpace(line) != "" {
				inList = listItem().MatchString(line) || inList && line[0] == ' '
			}
			if h := heading().FindStringSubmatchIndex(line); h != nil {
				line = line[:h[2]] + strings.Repeat("#", min(6, h[3]-h[2]+2)) + line[h[3]:]
			}
			if fenced && strings.TrimSpace(line) != "" {
				out = append(out, "")
			}
			fenced = false
			out = append(out, safeLine(line))
			continue
		}
		indent, open := len(m[1]), m[2]
		var code []string
		for i++; i < len(lines); i++ {
			l := lines[i]
			body := strings.TrimLeft(l, " ")
			if inList && body != "" && len(l)-len(body) < indent {
				i-- // the list item ends, and the block with it
				break
			}
			if strings.HasPrefix(body, open) && strings.Trim(body, open[:1]+" \t") == "" {
				break
			}
			code = append(code, l[min(indent, len(l)-len(body)):])
		}
		info, _, _ := strings.Cut(strings.TrimSpace(m[3]), " ")
		if !infoWord().MatchString(info) {
			info = ""
		}
		body := strings.Join(code, "\n")
		f := fence(body)
		blank()
		if len(code) == 0 {
			out = append(out, f+info, f)
		} else {
			out = append(out, f+info, body, f)
		}
		fenced = true
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// infoWord is a code block's language as claudebox writes it again.
var infoWord = compiled(`^[A-Za-z0-9_+#.-]{1,32}$`)

// safeLine makes one line of the transcript's text safe outside a fenced
// block: each code span kept (codeSpan), the rest through safeText, a
// backtick that opens no span escaped, so no line of it opens a fence.
// The spans are read as CommonMark reads them, for looks only: a viewer
// that reads them otherwise still finds nothing but text.
func safeLine(line string) string {
	var b strings.Builder
	text := 0 // where the text not yet written starts
	for i := 0; i < len(line); {
		switch {
		case line[i] == '\\' && i+1 < len(line) && isPunct(line[i+1]):
			i += 2
		case line[i] == '`':
			b.WriteString(safeText(line[text:i]))
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			if end := closingTicks(line[i+n:], n); end >= 0 {
				next := i + n + end + n
				if content := line[i+n : next-n]; inert(content) {
					b.WriteString(line[i:next])
				} else {
					b.WriteString(codeSpan(content))
				}
				i = next
			} else {
				b.WriteString(strings.Repeat("\\`", n))
				i += n
			}
			text = i
		default:
			i++
		}
	}
	b.WriteString(safeText(line[text:]))
	return b.String()
}

// isPunct reports whether c is ASCII punctuation, which a backslash
// escapes in Markdown.
func isPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
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
// ">" stays, it quotes), no image, no run of three tildes (a fence), links
// to http(s) only. s holds no backtick but escaped ones.
func safeText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
			if c = s[i+1]; c != '<' && c != '&' {
				b.WriteString(s[i : i+2])
				i++
				continue
			}
			i++ // "\<" is "<", written as an entity
		}
		switch {
		case c == '<':
			b.WriteString("&lt;")
		case c == '&':
			b.WriteString("&amp;")
		case c == '~' && strings.HasPrefix(s[i:], "~~~"):
			n := 1
			for i+n < len(s) && s[i+n] == '~' {
				n++
			}
			b.WriteString("\\" + s[i:i+n])
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	s = strings.ReplaceAll(b.String(), "![", `!\[`)
	s = refDefinition().ReplaceAllStringFunc(s, func(m string) string {
		if webURL(refDefinition().FindStringSubmatch(m)[1]) {
			return m
		}
		return `]\:` + m[2:]
	})
	return linkTarget().ReplaceAllStringFunc(s, func(m string) string {
		if webURL(linkTarget().FindStringSubmatch(m)[1]) {
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
