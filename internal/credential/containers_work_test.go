package credential

import (
	"bytes"
	"testing"
)

// TestContainersJudgedOnce: a settings text that starts a list or a table
// of credentials again and again is judged in work that grows as the text
// does. Each start was read for its values up to 4 KiB past it, whatever
// an earlier start had read: 16 KiB of "tokens: [" cost 2.6 s, and a
// toolchain's settings file, judged up to 1 MiB, held the launch for
// minutes. The work is counted in allocations, not timed: reading each
// start again costs some fifty a byte, once a byte or less. A list or a
// table of credentials is still found.
func TestContainersJudgedOnce(t *testing.T) {
	// Each reading of a start allocates its values and the matches of its
	// scalars; the judges of InSettings together allocate about one a
	// byte on a text of 8-byte lines.
	const mostPerByte = 4
	for _, s := range []string{`"tokens": [`, `"secrets": {"a": `, "tokens:\n", "- tokens:\n ", "[tokens]\n", "[secrets]\nx = ", "tokens: [x, "} {
		data := bytes.Repeat([]byte(s), (64<<10)/len(s))
		if per := testing.AllocsPerRun(1, func() { InSettings(data) }) / float64(len(data)); per > mostPerByte {
			t.Errorf("InSettings of %q said again and again allocated %.1f times a byte, want at most %d", s, per, mostPerByte)
		}
	}
	for _, s := range []string{
		`{"tokens": {"jira": "Zq8vR37cT0kenJ1raX2"}}`,
		"tokens:\n  jira: Zq8vR37cT0kenJ1raX2\n",
		"[credentials]\njira = \"Zq8vR37cT0kenJ1raX2\"\n",
		`{"tokens": [` + `{"name": "a"}, ` + `"Zq8vR37cT0kenJ1raX2"]}`,
	} {
		if !InSettings([]byte(s)) {
			t.Errorf("InSettings(%q) = false, want true", s)
		}
	}
}
