package session

import (
	"slices"
	"testing"

	"github.com/claudebox/claudebox/probe"
)

// TestClaudeArgPaths: both spellings of claude's flags that name a path,
// repeated, --add-dir's and --mcp-config's several, made absolute from the working
// directory, inline JSON as given; nothing after "--".
func TestClaudeArgPaths(t *testing.T) {
	args := []string{
		"--plugin-dir", "plugins/a", "-p", "hi", "--plugin-dir=/opt/b.zip", "--plugin-dir", "~/c",
		"--append-system-prompt-file", "../prompt.md", "--system-prompt-file=/p/s.md", "--add-dir", "../x", "/y", "--model", "m",
		"--settings", ` {"model":"m"} `, "--mcp-config", "../m.json", `{"mcpServers":{}}`, "--settings=s.json",
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
		{Flag: "--settings", Path: ` {"model":"m"} `},
		{Flag: "--mcp-config", Path: "/work/m.json"},
		{Flag: "--mcp-config", Path: `{"mcpServers":{}}`},
		{Flag: "--settings", Path: "/work/app/s.json"},
	}
	if got := claudeArgPaths(args, "/work/app"); !slices.Equal(got, want) {
		t.Errorf("claudeArgPaths = %q, want %q", got, want)
	}
}

// TestInlineJSONKept: the inline JSON of claude's --settings and
// --mcp-config, in both spellings, keeps only what is known harmless,
// with what it left out named; a file's path and what follows "--" are
// as given.
func TestInlineJSONKept(t *testing.T) {
	args := []string{
		"--settings", `{"model":"m","apiKeyHelper":"echo k"}`, "-p", "hi",
		`--mcp-config={"mcpServers":{"a":{"command":"a"},"b":{"command":"b","env":{"T":"v"}}}}`, "servers.json",
		"--", "--settings", `{"apiKeyHelper":"x"}`,
	}
	want := []string{
		"--settings", `{"model":"m"}`, "-p", "hi",
		`--mcp-config={"mcpServers":{"a":{"command":"a"}}}`, "servers.json",
		"--", "--settings", `{"apiKeyHelper":"x"}`,
	}
	got, leftOut := inlineJSONKept(args)
	if !slices.Equal(got, want) {
		t.Errorf("inlineJSONKept =\n%q, want\n%q", got, want)
	}
	if !slices.Equal(leftOut["--settings"], []string{"apiKeyHelper"}) || !slices.Equal(leftOut["--mcp-config"], []string{"mcpServers.b"}) {
		t.Errorf("left out: %q", leftOut)
	}
}
