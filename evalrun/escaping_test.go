package evalrun

import (
	"bytes"
	"testing"
)

// TestEscaping: controls are escaped, text (a character split between
// writes included) passes, and a character cut off at the end is named.
func TestEscaping(t *testing.T) {
	for name, c := range map[string]struct {
		escape func(rune) string
		want   string
	}{
		"json": {jsonEscape, `a\u001b]52\u0007é\u009b\u202e` + "\t\n" + `\xff\xc3`},
		"text": {textEscape, `a\x1b]52\x07é\u009b\u202e` + "\t\n" + `\xff\xc3`},
	} {
		var b bytes.Buffer
		e := &escaping{w: &b, escape: c.escape}
		for _, p := range []string{"a\x1b]52\x07\xc3", "\xa9\xc2", "\x9b\u202e\t\n\xff", "\xc3"} {
			if n, err := e.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("%s: Write = %d, %v", name, n, err)
			}
		}
		e.flush()
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", name, b.String(), c.want)
		}
	}
}
