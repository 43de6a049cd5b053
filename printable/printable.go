// Package printable makes text from files the repository or the sandbox can
// write safe to print on the user's terminal. A control character in it
// could erase a line, move the cursor or retitle the window, and so hide or
// fake what claudebox says; a bidirectional-text control could reorder it.
// These are shown escaped; all other text, non-ASCII included, as it is.
package printable

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsControl reports whether Escape escapes r: the C0 and C1 control
// characters, DEL, and the bidirectional-text controls.
func IsControl(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Escape returns s with each character IsControl reports, and each byte
// that is not UTF-8, written as a Go escape: \n, \r, \t, \x1b, \u009b,
// \u202e, \xff. Backslashes stay as they are, so escaping twice changes
// nothing more.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || IsControl(r) {
			return true
		}
	}
	return false
}

// excerptRunes bounds what an error quotes of a file's content.
const excerptRunes = 48

// Excerpt is what an error may quote of a file's content: its first
// excerptRunes characters, then "…", escaped.
func Excerpt(s string) string {
	if utf8.RuneCountInString(s) > excerptRunes {
		s = string([]rune(s)[:excerptRunes]) + "…"
	}
	return Escape(s)
}

// JSON escapes, in encoding/json's output, the characters IsControl
// reports that it leaves as they are (DEL, C1, the bidirectional-text
// controls), as \u escapes: the strings it holds read back the same. It
// escapes the C0 controls in strings itself, and its newlines between
// values stay.
func JSON(b []byte) []byte {
	var out strings.Builder
	for _, r := range string(b) {
		if r >= 0x7f && IsControl(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// Say writes one line with its control characters escaped: what it names
// may come from a file the repository or the sandbox wrote.
func Say(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, Escape(fmt.Sprintf(format, args...)))
}

// Count writes n with thousands separated by commas.
func Count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Counted is n things (Count), thing a noun that takes an s for more
// than one.
func Counted(n int, thing string) string {
	if n != 1 {
		thing += "s"
	}
	return Count(n) + " " + thing
}
