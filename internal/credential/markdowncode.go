package credential

import "bytes"

// markdownLine is what a line of Markdown is to markdownCode.
type markdownLine int

const (
	proseLine markdownLine = iota
	codeLine
	fenceLine
)

// markdownCode reads Markdown a line at a time and says which lines are
// a code block's, as CommonMark places one: a fence of three or more
// backquotes or tildes, closed only by a line of as many of the same
// and nothing else (a ```bash shown inside a ````markdown block is its
// code, not its end; a list's item may open one), a line indented by
// four columns or a tab (an
// indented block, a nested list's fence), each inside a block quote's
// > as well, and reStructuredText's literal block (the lines indented
// further than a line that ends in :: or a code directive: .rst is read
// as prose, and its two spaces are less than Markdown's four), an HTML
// <pre> block to the line that closes it, and a shell prompt's line
// ($ export DEPLOY_PASSWORD=…, alice@staging:~$ …), which notes write
// for a command as a block does. Taking a fence of three at a line's start for all of
// Markdown's code, prose's readers let an indented block's export
// DEPLOY_PASSWORD=…, a quoted fence's and a nested one's cross.
type markdownCode struct {
	// fence is the open fence's run of backquotes or tildes (nil:
	// none).
	fence []byte
	// literal is one more than the indentation of the line that opened
	// a reStructuredText literal block (0: none), whose lines are those
	// indented further.
	literal int
	// pre says an HTML <pre> block is open.
	pre bool
}

// read says what line is, and gives its text without a block quote's
// markers.
func (m *markdownCode) read(line []byte) ([]byte, markdownLine) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	for {
		trimmed := bytes.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 || !bytes.HasPrefix(trimmed, []byte(">")) {
			break
		}
		line = bytes.TrimPrefix(trimmed[1:], []byte(" "))
	}
	trimmed := bytes.TrimLeft(line, " \t")
	if m.pre {
		if end := bytes.Index(lowerASCII(line), []byte("</pre>")); end >= 0 {
			m.pre = false
			return line[:end], codeLine
		}
		return line, codeLine
	}
	if m.literal > 0 {
		if len(trimmed) == 0 || indent(line) >= m.literal {
			return line, codeLine
		}
		m.literal = 0
	}
	run := fenceRun(trimmed)
	if m.fence == nil && run == nil {
		run = fenceRun(listItemText(trimmed))
		trimmed = listItemText(trimmed)
	}
	if m.fence != nil {
		if len(run) >= len(m.fence) && run[0] == m.fence[0] && len(bytes.TrimRight(trimmed[len(run):], " \t")) == 0 {
			m.fence = nil
			return line, fenceLine
		}
		return line, codeLine
	}
	if indent(line) >= 4 && len(trimmed) > 0 {
		return line, codeLine
	}
	if len(run) >= 3 && (run[0] == '~' || bytes.IndexByte(trimmed[len(run):], '`') < 0) {
		m.fence = run
		return line, fenceLine
	}
	if text, ok := preOpened(trimmed); ok {
		if end := bytes.Index(lowerASCII(text), []byte("</pre>")); end >= 0 {
			return text[:end], codeLine
		}
		m.pre = true
		return text, codeLine
	}
	if text, ok := promptCommand(trimmed); ok {
		return text, codeLine
	}
	if bytes.HasSuffix(bytes.TrimRight(trimmed, " \t"), []byte("::")) || bytes.HasPrefix(trimmed, []byte(".. code")) || bytes.HasPrefix(trimmed, []byte(".. sourcecode")) {
		m.literal = indent(line) + 1
	}
	return line, proseLine
}

// promptCommand says line is a command after a shell's prompt, as notes
// show one, and gives the command: after $ or zsh's %, or a prompt of
// the user's and host's own (alice@staging:~$, root's host# too,
// [alice@staging app]$), each after a virtualenv's (venv) too.
func promptCommand(line []byte) ([]byte, bool) {
	if inner, ok := bytes.CutPrefix(line, []byte("(")); ok {
		if name, after, ok := bytes.Cut(inner, []byte(") ")); ok && len(name) > 0 && !bytes.ContainsAny(name, " \t()") {
			line = after
		}
	}
	if bytes.HasPrefix(line, []byte("[")) {
		prompt, after, ok := bytes.Cut(line, []byte("]"))
		if ok && bytes.IndexByte(prompt, '@') > 1 && len(after) > 1 && bytes.IndexByte([]byte("$#"), after[0]) >= 0 && after[1] == ' ' {
			return after[2:], true
		}
		return nil, false
	}
	word, command, ok := bytes.Cut(line, []byte(" "))
	switch {
	case !ok:
		return nil, false
	case string(word) == "$" || string(word) == "%":
		return command, true
	case len(word) > 2 && bytes.IndexByte(word, '@') > 0 && bytes.IndexByte([]byte("$%#"), word[len(word)-1]) >= 0:
		return command, true
	}
	return nil, false
}

// listItemText is line without a list item's marker (-, *, + or a
// number's 1. or 1), and the space after it), where it has one: a fence
// may open an item.
func listItemText(line []byte) []byte {
	i := 0
	for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	switch {
	case i == 0 && len(line) > 1 && bytes.IndexByte([]byte("-*+"), line[0]) >= 0 && (line[1] == ' ' || line[1] == '\t'):
		return bytes.TrimLeft(line[1:], " \t")
	case i > 0 && len(line) > i+1 && (line[i] == '.' || line[i] == ')') && (line[i+1] == ' ' || line[i+1] == '\t'):
		return bytes.TrimLeft(line[i+1:], " \t")
	}
	return line
}

// preOpened says line opens an HTML <pre> block, as CommonMark reads
// one (<pre followed by a space, > or the line's end, in any case), and
// gives what follows the tag.
func preOpened(line []byte) ([]byte, bool) {
	if len(line) < 4 || !bytes.Equal(lowerASCII(line[:4]), []byte("<pre")) {
		return nil, false
	}
	rest := line[4:]
	if len(rest) > 0 && rest[0] != '>' && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false
	}
	if end := bytes.IndexByte(rest, '>'); end >= 0 {
		return rest[end+1:], true
	}
	return nil, true
}

// fenceRun is the run of backquotes or tildes line begins with.
func fenceRun(line []byte) []byte {
	if len(line) == 0 || line[0] != '`' && line[0] != '~' {
		return nil
	}
	n := 1
	for n < len(line) && line[n] == line[0] {
		n++
	}
	return line[:n]
}

// indent is the columns of space line begins with, a tab taking it to
// the next multiple of four.
func indent(line []byte) int {
	col := 0
	for _, c := range line {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col
		}
	}
	return col
}

// inlineCode is line's inline code spans, as CommonMark reads them: the
// text between a run of backquotes and the next run of as many (a
// span of two around PGPASSWORD=… psql, which Markdown writes to hold a
// backquote and reStructuredText for every literal: split at each
// backquote, its text read as prose and crossed), and an HTML <code>
// element's. Each byte is read once: the runs are listed, each with the
// next run of its length.
func inlineCode(line []byte) [][]byte {
	type run struct{ start, end, next int }
	// Sized once: a line of 256 KiB of spans grown run by run cost 50
	// times one of 32 KiB.
	runs := make([]run, 0, bytes.Count(line, []byte("`")))
	for i := 0; i < len(line); i++ {
		if line[i] == '`' {
			j := i + 1
			for j < len(line) && line[j] == '`' {
				j++
			}
			runs = append(runs, run{start: i, end: j, next: -1})
			i = j
		}
	}
	last := map[int]int{}
	for i := len(runs) - 1; i >= 0; i-- {
		n := runs[i].end - runs[i].start
		if j, ok := last[n]; ok {
			runs[i].next = j
		}
		last[n] = i
	}
	spans := make([][]byte, 0, len(runs)/2)
	for i := 0; i < len(runs); i++ {
		if j := runs[i].next; j >= 0 {
			spans = append(spans, line[runs[i].end:runs[j].start])
			i = j
		}
	}
	if bytes.IndexByte(line, '<') < 0 {
		return spans
	}
	lower := lowerASCII(line)
	for at := 0; ; {
		open := bytes.Index(lower[at:], []byte("<code>"))
		if open < 0 {
			break
		}
		from := at + open + len("<code>")
		end := bytes.Index(lower[from:], []byte("</code>"))
		if end < 0 {
			break
		}
		spans = append(spans, line[from:from+end])
		at = from + end + len("</code>")
	}
	return spans
}
