package gitconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFormatReadsBack: what Format writes, the real git lists as it lists
// the original, quotes, escapes, subsections, names without a value and
// multiple values included.
func TestFormatReadsBack(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	list := func(path string) string {
		t.Helper()
		c := exec.Command("git", "config", "-f", path, "--list", "--null")
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git config -f %s: %v", path, err)
		}
		return string(out)
	}
	for i, src := range []string{
		"[user]\n\tname = Alice Example\n\temail = a@example.com\n",
		"[url \"https://x@example.com/\"]\n\tinsteadOf = https://e/\n[Core]\n\tBare\n\tbare = false\n",
		"[alias]\n\tst = \"status  # not a comment\" ; a comment\n\tlg = !git log \\\n --oneline\n\tq = a\\\"b\\\\c\\td\\ne\n",
		"[section.Sub]\n\tx = 1\n[weird \"sub \\\"quoted\\\" \\\\ .dots.\"]\n\tk = \" lead and trail \"\n\tk = second\n\tempty =\n",
		"\xef\xbb\xbf[a]b=c\n[a]\nb\n",
	} {
		orig := filepath.Join(dir, "orig")
		if err := os.WriteFile(orig, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		entries, err := Parse([]byte(src))
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		formatted := filepath.Join(dir, "formatted")
		if err := os.WriteFile(formatted, Format(entries), 0o600); err != nil {
			t.Fatal(err)
		}
		if want, got := list(orig), list(formatted); got != want {
			t.Errorf("%d: git lists %q, want %q\n%s", i, got, want, Format(entries))
		}
	}
}
