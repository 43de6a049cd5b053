package printable

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain /home/al ice/code", "plain /home/al ice/code"},
		{"non-ASCII: ü, 日本, emoji 👍🏽", "non-ASCII: ü, 日本, emoji 👍🏽"},
		{"a\\x1b stays", "a\\x1b stays"},
		{"erase\x1b[2K\rfake", `erase\x1b[2K\rfake`},
		{"title\x1b]0;x\x07", `title\x1b]0;x\x07`},
		{"line\nnext\ttab", `line\nnext\ttab`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"rlo\u202egnp.exe", `rlo\u202egnp.exe`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"replacement \ufffd is text", "replacement \ufffd is text"},
	} {
		got := Escape(c.in)
		if got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Escape(got); again != got {
			t.Errorf("Escape twice changed %q to %q", got, again)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("ü", excerptRunes) + "SECRET"
	if got := Excerpt(long); got != strings.Repeat("ü", excerptRunes)+"…" {
		t.Errorf("Excerpt(long) = %q", got)
	}
	if got := Excerpt("short\x1b"); got != `short\x1b` {
		t.Errorf("Excerpt(short) = %q", got)
	}
}

func TestJSON(t *testing.T) {
	in := []string{"csi\u009b31m", "del\x7f", "rlo\u202e", "esc\x1b", "ü"}
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	for _, r := range string(out) {
		if r != '\n' && IsControl(r) {
			t.Fatalf("JSON left %U in %s", r, out)
		}
	}
	var back []string
	if err := json.Unmarshal(out, &back); err != nil || strings.Join(back, "|") != strings.Join(in, "|") {
		t.Fatalf("JSON(%s) reads back as %q, %v", b, back, err)
	}
	if !strings.Contains(string(out), "\n  \"ü\"") {
		t.Errorf("JSON changed the layout or the text: %s", out)
	}
}

func TestCounted(t *testing.T) {
	for n, want := range map[int]string{0: "0 rules", 1: "1 rule", 2: "2 rules", 1234567: "1,234,567 rules"} {
		if got := Counted(n, "rule"); got != want {
			t.Errorf("Counted(%d, rule) = %q, want %q", n, got, want)
		}
	}
}
