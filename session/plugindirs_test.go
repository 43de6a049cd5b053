package session

import (
	"slices"
	"testing"
)

// TestClaudePluginDirs: both spellings of claude's --plugin-dir, repeated,
// made absolute from the working directory; nothing after "--".
func TestClaudePluginDirs(t *testing.T) {
	args := []string{"--plugin-dir", "plugins/a", "-p", "hi", "--plugin-dir=/opt/b.zip", "--plugin-dir", "~/c", "--", "--plugin-dir", "d"}
	want := []string{"/work/app/plugins/a", "/opt/b.zip", "~/c"}
	if got := claudePluginDirs(args, "/work/app"); !slices.Equal(got, want) {
		t.Errorf("claudePluginDirs = %q, want %q", got, want)
	}
}
