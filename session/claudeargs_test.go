package session

import (
	"slices"
	"testing"

	"github.com/claudebox/claudebox/probe"
)

// TestClaudeArgPaths: both spellings of claude's flags that name a path,
// repeated, --add-dir's several, made absolute from the working
// directory; nothing after "--".
func TestClaudeArgPaths(t *testing.T) {
	args := []string{
		"--plugin-dir", "plugins/a", "-p", "hi", "--plugin-dir=/opt/b.zip", "--plugin-dir", "~/c",
		"--append-system-prompt-file", "../prompt.md", "--system-prompt-file=/p/s.md", "--add-dir", "../x", "/y", "--model", "m",
		"--", "--plugin-dir", "d",
	}
	want := []probe.ClaudeArg{
		{Flag: "--plugin-dir", Path: "/work/app/plugins/a"},
		{Flag: "--plugin-dir", Path: "/opt/b.zip"},
		{Flag: "--plugin-dir", Path: "~/c"},
		{Flag: "--append-system-prompt-file", Path: "/work/prompt.md"},
		{Flag: "--system-prompt-file", Path: "/p/s.md"},
		{Flag: "--add-dir", Path: "/work/x"},
		{Flag: "--add-dir", Path: "/y"},
	}
	if got := claudeArgPaths(args, "/work/app"); !slices.Equal(got, want) {
		t.Errorf("claudeArgPaths = %q, want %q", got, want)
	}
}
