package evalrun

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/claudebox/claudebox/printable"
)

// escaping writes to w what is written to it with each control character
// printable escapes (but newline and tab) written by escape, and each byte
// that is not UTF-8 as \xNN: the sandbox can write raw bytes into Claude
// Code's stdout and stderr (through /proc/<pid>/fd), and the user reads
// transcript.jsonl and stderr.log with cat. A character split between
// writes waits for its end.
type escaping struct {
	w       io.Writer
	escape  func(rune) string
	partial []byte
}

// jsonEscape writes a control character as JSON does, which in a valid
// stream line can stand only in a string, where it means the same.
func jsonEscape(r rune) string { return fmt.Sprintf(`\u%04x`, r) }

// textEscape writes a control character as printable does.
func textEscape(r rune) string { return printable.Escape(string(r)) }

func (e *escaping) Write(p []byte) (int, error) {
	buf := append(e.partial, p...)
	var out bytes.Buffer
	i := 0
	for i < len(buf) && utf8.FullRune(buf[i:]) {
		r, size := utf8.DecodeRune(buf[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&out, `\x%02x`, buf[i])
		case r == '\n', r == '\t', !printable.IsControl(r):
			out.Write(buf[i : i+size])
		default:
			out.WriteString(e.escape(r))
		}
		i += size
	}
	e.partial = append([]byte(nil), buf[i:]...)
	if _, err := e.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes the bytes of a character the output ended in the middle of.
func (e *escaping) flush() error {
	var out bytes.Buffer
	for _, c := range e.partial {
		fmt.Fprintf(&out, `\x%02x`, c)
	}
	e.partial = nil
	_, err := e.w.Write(out.Bytes())
	return err
}
