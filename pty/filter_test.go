package pty

import (
	"fmt"
	"strings"
	"testing"
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

func TestFilterClipboard(t *testing.T) {
	const title = "\x1b]0;✳ Claude Code\x07"
	const link = "\x1b]8;;https://example.com\x1b\\here\x1b]8;;\x1b\\"
	cases := []struct{ name, in, want string }{
		{"plain text and UTF-8", "hé ✝52; \x1b[31mred\x1b[0m\r\n", "hé ✝52; \x1b[31mred\x1b[0m\r\n"},
		{"title passes", title, title},
		{"hyperlink passes", link, link},
		{"OSC 52 with BEL", "a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07b", "ab"},
		{"OSC 52 with ST", "a\x1b]52;c;Y3VybA==\x1b\\b", "ab"},
		{"OSC 52 with a leading zero", "a\x1b]052;c;Y3VybA==\x07b", "ab"},
		{"OSC 52 query", "a\x1b]52;c;?\x07b", "ab"},
		{"OSC 52 in 8 bits", "a\x9d52;c;Y3VybA==\x9cb", "ab"},
		{"OSC 52 as UTF-8 C1", "a\xc2\x9d52;c;Y3VybA==\xc2\x9cb", "a\xc2b"},
		{"OSC 52 inside a tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;Y3VybA==\x07\x1b\\", "\x1bPtmux;\x1b\x1b\\"},
		{"OSC 52 cut by another sequence", "\x1b]52;c;Y3Vy\x1b[1mB", "\x1b[1mB"},
		{"OSC 5 passes", "\x1b]5;1;red\x07", "\x1b]5;1;red\x07"},
		{"OSC 520 passes", "\x1b]520;x\x07", "\x1b]520;x\x07"},
		{"lone ESC then text", "\x1bx\x1b", "\x1bx"},
		{"double ESC", "\x1b\x1b[1m", "\x1b\x1b[1m"},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			if got, _ := feed(c.in, false, cut); got != c.want {
				t.Errorf("%s, cut at %d: %q, want %q", c.name, cut, got, c.want)
				break
			}
		}
		var cuts []int
		for i := 1; i < len(c.in); i++ {
			cuts = append(cuts, i)
		}
		if got, _ := feed(c.in, false, cuts...); got != c.want {
			t.Errorf("%s, byte by byte: %q, want %q", c.name, got, c.want)
		}
	}
	in := "a\x1b]52;c;Y3VybA==\x07b"
	if got, _ := feed(in, true); got != in {
		t.Errorf("with the clipboard allowed: %q, want it unchanged", got)
	}
}

func TestFilterModes(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"nothing changed", "hello", ""},
		{"mouse and paste left on", "\x1b[?1000h\x1b[?1006h\x1b[?2004h", "\x1b[?1000l\x1b[?1006l\x1b[?2004l"},
		{"turned off again", "\x1b[?1000h\x1b[?1000l", ""},
		{"several in one", "\x1b[?1;1000;1049h", "\x1b[?1l\x1b[?1000l\x1b[?1049l"},
		{"alternate screen last", "\x1b[?1049h\x1b[?2004h", "\x1b[?2004l\x1b[?1049l"},
		{"cursor hidden", "\x1b[?25l\x1b[?7l", "\x1b[?7h\x1b[?25h"},
		{"cursor hidden and shown", "\x1b[?25l\x1b[?25h", ""},
		{"ANSI modes are not DEC's", "\x1b[4h", ""},
		{"kitty keyboard pushed", "\x1b[>1u\x1b[>5u", "\x1b[<2u"},
		{"kitty keyboard pushed and popped", "\x1b[>1u\x1b[<u", ""},
		{"modifyOtherKeys", "\x1b[>4;2m", "\x1b[>4m"},
		{"modifyOtherKeys reset", "\x1b[>4;2m\x1b[>4m", ""},
		{"inside a dropped clipboard write", "\x1b]52;c;\x1b[?1000h", "\x1b[?1000l"},
	}
	for _, c := range cases {
		for cut := 0; cut <= len(c.in); cut++ {
			if _, f := feed(c.in, false, cut); string(f.reset()) != c.want {
				t.Errorf("%s, cut at %d: reset %q, want %q", c.name, cut, f.reset(), c.want)
				break
			}
		}
	}
	var many strings.Builder
	for n := range 1000 {
		fmt.Fprintf(&many, "\x1b[?%dh", n)
	}
	if _, f := feed(many.String(), false); len(f.modes) != maxModes {
		t.Errorf("%d modes tracked, want %d", len(f.modes), maxModes)
	}
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
