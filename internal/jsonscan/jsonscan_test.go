package jsonscan

import (
	"strings"
	"testing"
)

// skipStringByByte is SkipString read one byte at a time: a backslash
// escapes the byte after it.
func skipStringByByte(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return -1
}

// FuzzSkipString: a string ends where a reading one byte at a time ends
// it, whether its end lies among the bytes looked at one by one or past
// them, where it is searched for, and whatever run of backslashes stands
// before a quote on either side of that line.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{
		`""`, `"a"`, `"\""`, `"\\"`, `"\\\""`, `"abc`, `"\`,
		`"` + strings.Repeat("a", shortString-1) + `\"x"`,
		`"` + strings.Repeat("a", shortString-1) + `\\"x"`,
		`"` + strings.Repeat("a", shortString) + `\"x"`,
		`"` + strings.Repeat(`\\`, shortString) + `"`,
		`"` + strings.Repeat("a", shortString-2) + `\\\\\"" "`,
		`"` + strings.Repeat("a", 40) + `\\\"` + strings.Repeat("b", 40) + `"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		if got, want := SkipString(b, 0), skipStringByByte(b, 0); got != want {
			t.Fatalf("SkipString(%q) = %d, want %d", b, got, want)
		}
	})
}
