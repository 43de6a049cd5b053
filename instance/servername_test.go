package instance

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidServerName: the hand-written check accepts exactly what the
// regular expression of claude mcp add's names does.
func TestValidServerName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	for _, name := range []string{"", "a", "A-z_09", strings.Repeat("x", 64), strings.Repeat("x", 65), "a b", "a.b", "é", "a\n", "a/b", "-", "_", "Z9"} {
		if got, want := ValidServerName(name), re.MatchString(name); got != want {
			t.Errorf("ValidServerName(%q) = %v, want %v", name, got, want)
		}
	}
}
