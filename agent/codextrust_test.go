package agent

import (
	"strings"
	"testing"
)

// The answers carried are the project's own paths' and the two values
// Codex writes; the user's own entries win; a file that is not TOML is
// left as it is.
func TestCodexTrust(t *testing.T) {
	written := []byte(`model = "x"
[projects."/p"]
trust_level = "trusted"
[projects."/elsewhere"]
trust_level = "trusted"
[projects."/p/sub"]
trust_level = "full-power"
`)
	got := CodexTrustLevels(written, []string{"/p", "/p/sub"})
	if len(got) != 1 || got["/p"] != "trusted" {
		t.Errorf("levels %v", got)
	}
	if CodexTrustLevels([]byte("not = = toml"), []string{"/p"}) != nil {
		t.Error("a file that is not TOML gave levels")
	}
	user := []byte("model = \"o3\"\n[projects.\"/q\"]\ntrust_level = \"untrusted\"\n")
	out := string(WithCodexTrust(user, map[string]string{"/p": "trusted", "/q": "trusted"}))
	if !strings.Contains(out, "model = 'o3'") && !strings.Contains(out, `model = "o3"`) {
		t.Errorf("the user's keys are lost:\n%s", out)
	}
	back := CodexTrustLevels([]byte(out), []string{"/p", "/q"})
	if back["/p"] != "trusted" || back["/q"] != "untrusted" {
		t.Errorf("got %v from\n%s", back, out)
	}
	if got := WithCodexTrust(nil, map[string]string{"/p": "trusted"}); CodexTrustLevels(got, []string{"/p"})["/p"] != "trusted" {
		t.Errorf("no config: %s", got)
	}
	for _, in := range []string{"not = = toml", "projects = 3\n"} {
		if got := string(WithCodexTrust([]byte(in), map[string]string{"/p": "trusted"})); got != in {
			t.Errorf("%q became %q", in, got)
		}
	}
}
