package pty

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// feed passes in through a new filter split into chunks at every cut, as
// reads may split it.
func feed(in string, clipboard bool, cuts ...int) (string, *filter) {
	f := &filter{clipboard: clipboard}
	var out []byte
	last := 0
	for _, c := range append(cuts, len(in)) {
		out = append(out, f.write([]byte(in[last:c]))...)
		last = c
	}
	return string(out), f
}

var filterCases = []struct {
	name, in, want string
	clipboard      bool
}{
	{name: "plain text and UTF-8", in: "hé ✝52; 😀 \x1b[31mred\x1b[0m\r\n", want: "hé ✝52; 😀 \x1b[31mred\x1b[0m\r\n"},
	{name: "title", in: "\x1b]0;✳ Claude Code\x07", want: "\x1b]0;✳ Claude Code\x07"},
	{name: "title with ST", in: "\x1b]2;t\x1b\\", want: "\x1b]2;t\x1b\\"},
	{name: "hyperlink", in: "\x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\", want: "\x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\"},
	{name: "progress", in: "\x1b]9;4;1;50\x07", want: "\x1b]9;4;1;50\x07"},
	{name: "prompt mark", in: "\x1b]133;A\x07", want: "\x1b]133;A\x07"},
	{name: "colour query", in: "\x1b]11;?\x07", want: "\x1b]11;?\x07"},
	{name: "colour set", in: "a\x1b]11;rgb:0000/0000/0000\x07b", want: "ab"},
	{name: "palette", in: "a\x1b]4;1;red\x07b", want: "ab"},
	{name: "notification", in: "a\x1b]9;run sudo now\x07\x1b]777;notify;x;y\x07\x1b]99;;hi\x1b\\b", want: "ab"},
	{name: "working directory", in: "a\x1b]7;file:///home/u/x\x07b", want: "ab"},
	{name: "OSC 52 with BEL", in: "a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07b", want: "ab"},
	{name: "OSC 52 with ST", in: "a\x1b]52;c;Y3VybA==\x1b\\b", want: "ab"},
	{name: "OSC 52 with a C0 byte in its number", in: "a\x1b]5\x012;c;Y3VybA==\x07b", want: "ab"},
	{name: "OSC 52 with a leading zero", in: "a\x1b]052;c;Y3VybA==\x07b", want: "ab"},
	{name: "OSC 52 after ESC and a C0 byte", in: "a\x1b\x01]52;c;Y3VybA==\x07b", want: "ab"},
	{name: "OSC 52 cancelled", in: "a\x1b]52\x18;c;Y3Vy\x07b", want: "a\x18;c;Y3Vy\x07b"},
	{name: "OSC 52 in 8 bits", in: "a\x9d52;c;Y3VybA==\x9cb", want: "a52;c;Y3VybA==b"},
	{name: "OSC 52 as UTF-8 C1", in: "a\xc2\x9d52;c;Y3VybA==\xc2\x9cb", want: "a52;c;Y3VybA==b"},
	{name: "OSC 52 cut by another sequence", in: "\x1b]52;c;Y3Vy\x1b[1mB", want: "\x1b[1mB"},
	{name: "OSC 52 inside a tmux passthrough", in: "\x1bPtmux;\x1b\x1b]52;c;Y3VybA==\x07\x1b\\x", want: "\x1b\\x"},
	{name: "kitty clipboard", in: "a\x1b]5522;type=write;Y3Vy\x1b\\b", want: "ab"},
	{name: "iTerm2 clipboard", in: "a\x1b]1337;Copy=:Y3Vy\x07b", want: "ab"},
	{name: "DCS, SOS, PM, APC", in: "a\x1bP1$qm\x1b\\\x1bXs\x1b\\\x1b^p\x1b\\\x1b_Gf=100;x\x1b\\b", want: "ab"},
	{name: "screen's window name", in: "a\x1bkname\x1b\\b", want: "ab"},
	{name: "DCS ends at ST only", in: "a\x1bPq\x07#0\x1b\\b", want: "ab"},
	{name: "title with a C0 byte", in: "a\x1b]0;x\x01y\x07b", want: "ab"},
	{name: "title with a C1 introducer byte", in: "a\x1b]0;😀\x07b", want: "ab"},
	{name: "title too long", in: "a\x1b]0;" + strings.Repeat("x", maxSeq) + "\x07b", want: "ab"},
	{name: "unfinished title", in: "a\x1b]0;x", want: "a"},
	{name: "CSI with a C0 byte", in: "\x1b[3\n1m", want: "\x1b[3\n1m"},
	{name: "CSI with a non-ASCII byte", in: "\x1b[1✳m", want: "✳m"},
	{name: "CSI too long", in: "\x1b[" + strings.Repeat("1;", maxSeq) + "m", want: strings.Repeat("1;", maxSeq)[maxSeq-2:] + "m"},
	{name: "ESC with an intermediate", in: "\x1b(0q\x1b(B", want: "\x1b(0q\x1b(B"},
	{name: "leave UTF-8, and back", in: "a\x1b%@\u07dd52;c;Y3Vy\x07\x1b%Gb", want: "a\u07dd52;c;Y3Vy\x07b"},
	{name: "8-bit replies and conformance levels", in: "a\x1b G\x1b F\x1b L\x1b \x01Nb", want: "ab"},
	{name: "ANSI modes that lock the keyboard or echo", in: "a\x1b[2h\x1b[12l\x1b[4h\x1b[20l\x1b[4;2hb", want: "a\x1b[4h\x1b[20lb"},
	{name: "DEC modes of the keyboard", in: "a\x1b[?8l\x1b[?67h\x1b[?1034l\x1b[?1036h\x1b[?1039h\x1b[?1052h\x1b[?25;1036hb", want: "ab"},
	{name: "VT52 and Tektronix modes", in: "a\x1b[?2l\x1b[?38h\x1b[?1;2lb\x1b[?2h", want: "ab"},
	{name: "key modifiers and title modes", in: "a\x1b[>1;3m\x1b[>2;3m\x1b[>0m\x1b[>1n\x1b[>4;1f\x1b[>2t\x1b[>0T\x1b[>3p\x1b[61;0\"pb", want: "ab"},
	{name: "modifyOtherKeys, queries, kitty keys", in: "\x1b[>4;2m\x1b[>4n\x1b[>c\x1b[>0q\x1b[>1u", want: "\x1b[>4;2m\x1b[>4n\x1b[>c\x1b[>0q\x1b[>1u"},
	{name: "DEC modes of the screen", in: "\x1b[?25l\x1b[?1049h\x1b[?2004h", want: "\x1b[?25l\x1b[?1049h\x1b[?2004h"},
	{name: "media copy", in: "a\x1b[10i\x1b[11i\x1b[5iP\x1b[4i\x1b[i\x1b[?5i\x1b[0;10ib", want: "aPb"},
	{name: "rectangles and the status line", in: "a\x1b[1;1;2;2$z\x1b[2$~\x1b[1$}b", want: "ab"},
	{
		name: "cursor, edits, scrolling, reports", in: "\x1b[2;5H\x1b[3A\x1b[K\x1b[2J\x1b[3J\x1b[1;24r\x1b[2S\x1b[4@\x1b[2P\x1b[5X\x1b[6n\x1b[c\x1b[22;0t\x1b[2 q\x1b[?2026$p\x1b[!p\x1b[s\x1b[u\x1b[5`\x1b[3d\x1b[3b\x1b[0g\x1b[2Z",
		want: "\x1b[2;5H\x1b[3A\x1b[K\x1b[2J\x1b[3J\x1b[1;24r\x1b[2S\x1b[4@\x1b[2P\x1b[5X\x1b[6n\x1b[c\x1b[22;0t\x1b[2 q\x1b[?2026$p\x1b[!p\x1b[s\x1b[u\x1b[5`\x1b[3d\x1b[3b\x1b[0g\x1b[2Z",
	},
	{name: "lone ESC then text", in: "\x1bx\x1b", want: "\x1bx"},
	{name: "double ESC", in: "\x1b\x1b[1m", want: "\x1b[1m"},
	{name: "malformed UTF-8", in: "a\xff\xe2\x9cb\xed\xa0\x80c\xef\xbf\xbd", want: "abc\uFFFD"},
	{name: "clipboard allowed", in: "a\x1b]52;c;Y3VybA==\x07b", want: "a\x1b]52;c;Y3VybA==\x07b", clipboard: true},
	{name: "clipboard read refused", in: "a\x1b]52;c;?\x07b", want: "ab", clipboard: true},
	{name: "large clipboard write", in: "\x1b]52;c;" + strings.Repeat("QUJD", maxSeq) + "\x07", want: "\x1b]52;c;" + strings.Repeat("QUJD", maxSeq) + "\x07", clipboard: true},
}

func TestFilter(t *testing.T) {
	for _, c := range filterCases {
		if got, _ := feed(c.in, c.clipboard); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
			continue
		}
		if len(c.in) > 100 {
			continue
		}
		for cut := 0; cut <= len(c.in); cut++ {
			if got, _ := feed(c.in, c.clipboard, cut); got != c.want {
				t.Errorf("%s, cut at %d: %q, want %q", c.name, cut, got, c.want)
				break
			}
		}
		var cuts []int
		for i := 1; i < len(c.in); i++ {
			cuts = append(cuts, i)
		}
		if got, _ := feed(c.in, c.clipboard, cuts...); got != c.want {
			t.Errorf("%s, byte by byte: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFilterReset: the reset at exit is the same whatever the child did,
// however many modes it set, except that origin mode, whose reset moves
// the cursor, is reset only when the child may have set it.
func TestFilterReset(t *testing.T) {
	cases := []struct {
		in     string
		origin bool
	}{
		{"hello\n", false},
		{strings.Repeat("\x1b[?1000h", 100) + "\x1b[?1049h", false},
		{"\x1b[6;20r\x1b[6h", false},
		{"\x1b[?6h", true},
		{"\x1b[?1;06h", true},
		{"\x1b[?\x016h", true},
		{"\x1b[?6\x01l", false},
		{"\x1b[?6s\x1b[?6l\x1b[?6r", true},
		{"\x1b[?4294967302h", true},
		{"\x1b]0;\x1b[?6h", true},
	}
	for _, c := range cases {
		_, f := feed(c.in, false)
		want := exitReset
		if c.origin {
			want += originReset
		}
		if got := string(f.reset()); got != want {
			t.Errorf("after %q: reset %q, want %q", c.in, got, want)
		}
	}
	// After a line left unended (claude -p's "Execution error" on
	// Ctrl-C), what claudebox says next starts a line of its own; after a
	// line's end and sequences that print nothing, no empty line comes.
	for in, newline := range map[string]bool{"Execution error": true, "é": true, "done\r\n\x1b[?25h": false, "a\rb\n": false, "": false} {
		_, f := feed(in, false)
		if got := strings.HasPrefix(string(f.reset()), "\r\n"); got != newline {
			t.Errorf("after %q: the reset begins a line: %v, want %v", in, got, newline)
		}
	}
	// The reset itself passes the filter unchanged: each of its sequences
	// is complete and allowed.
	if got, _ := feed(exitReset+originReset, false); got != exitReset+originReset {
		t.Errorf("the reset through the filter: %q", got)
	}
}

// FuzzFilter: for any output of the child, split at any points, what
// reaches the terminal is the output minus whole dropped sequences, the
// same however it was split; a terminal reading it byte by byte (8-bit C1
// controls included) finds no string sequence but the allowed ones, and
// is in its ground state at the end; the filter holds at most one bounded
// sequence.
func FuzzFilter(f *testing.F) {
	for _, c := range filterCases {
		if !c.clipboard && len(c.in) < 200 {
			f.Add([]byte(c.in), []byte{3, 1, 7})
		}
	}
	f.Fuzz(func(t *testing.T, in, splits []byte) {
		whole, _ := feed(string(in), false)
		flt := &filter{}
		var out []byte
		for i, rest := 0, in; len(rest) > 0; i++ {
			n := len(rest)
			if len(splits) > 0 {
				n = min(n, 1+int(splits[i%len(splits)]))
			}
			out = append(out, flt.write(rest[:n])...)
			rest = rest[n:]
			if len(flt.held) > maxSeq {
				t.Fatalf("the filter holds %d bytes", len(flt.held))
			}
		}
		if string(out) != whole {
			t.Fatalf("split output %q differs from whole %q", out, whole)
		}
		if !subsequence(out, in) {
			t.Fatalf("output %q is not the input %q minus dropped bytes", out, in)
		}
		for _, s := range terminalStrings(t, out) {
			if !referenceAllowed(s) {
				t.Fatalf("the terminal reads the string sequence %q in %q", s, out)
			}
		}
	})
}

// subsequence says whether sub is s with some bytes left out.
func subsequence(sub, s []byte) bool {
	for _, c := range sub {
		i := bytes.IndexByte(s, c)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}

// terminalStrings reads out as the most credulous terminal would: the
// VT500 state machine on bytes, with every 8-bit C1 control, except inside
// a well-formed UTF-8 character of text; it fails the test on a C1 string
// or CSI introducer, and returns each string sequence it would act on
// (introducer and body, without the C0 bytes a terminal ignores there).
func terminalStrings(t *testing.T, out []byte) []string {
	const (
		ground = iota
		escape
		escInter
		csi
		oscStr
		otherStr
	)
	st := ground
	var strs []string
	var cur []byte
	for i := 0; i < len(out); i++ {
		b := out[i]
		if st == ground && b >= 0xc2 {
			if _, n := utf8.DecodeRune(out[i:]); n > 1 {
				i += n - 1
				continue
			}
		}
		switch {
		case b == 0x90 || b == 0x98 || b == 0x9b || b == 0x9d || b == 0x9e || b == 0x9f:
			t.Fatalf("a C1 introducer %#x at %d in %q", b, i, out)
		case b == can || b == sub || (b >= 0x80 && b <= 0x9f):
			st = ground
			continue
		case b == esc:
			if st == oscStr || st == otherStr {
				strs = append(strs, string(cur))
			}
			st = escape
			continue
		}
		switch st {
		case escape:
			switch {
			case b == ']':
				st, cur = oscStr, []byte("OSC ")
			case b == 'P' || b == 'X' || b == '^' || b == '_' || b == 'k':
				st, cur = otherStr, []byte{'E', 'S', 'C', ' ', b, ' '}
			case b == '[':
				st = csi
			case b >= 0x20 && b <= 0x2f:
				st = escInter
			case b >= 0x30 && b <= 0x7e:
				st = ground
			}
		case escInter:
			if b >= 0x30 && b <= 0x7e {
				st = ground
			}
		case csi:
			if b >= 0x40 && b <= 0x7e {
				st = ground
			}
		case oscStr:
			if b == bel {
				strs = append(strs, string(cur))
				st = ground
			} else if b >= 0x20 {
				cur = append(cur, b)
			}
		case otherStr:
			if b >= 0x20 {
				cur = append(cur, b)
			}
		}
	}
	if st != ground {
		t.Fatalf("the terminal is left in state %d by %q", st, out)
	}
	return strs
}

// referenceAllowed: the string sequences a terminal may act on, as
// docs/security.md lists them ("The sandbox's terminal").
func referenceAllowed(s string) bool {
	body, ok := strings.CutPrefix(s, "OSC ")
	if !ok {
		return false
	}
	num, rest, _ := strings.Cut(body, ";")
	switch num {
	case "0", "1", "2", "8", "133":
		return true
	case "9":
		return strings.HasPrefix(rest, "4;")
	case "10", "11", "12":
		return rest == "?"
	}
	return false
}

// BenchmarkFilter: the cost per byte of passing a TUI's output through.
func BenchmarkFilter(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[38;5;174m✻ Thinking…\x1b[39m \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\r\n", 100))
	var f filter
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		f.write(chunk)
	}
}
