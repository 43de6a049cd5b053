package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteUnderStandInFails: the real claude's Write tool creating
// .vscode/launch.json where the project has no .vscode gets an error at
// once (nothing can be written in a stand-in directory), instead of a
// success into a private directory the session then discards without a
// word; so does a shell's mkdir and redirection there.
func TestWriteUnderStandInFails(t *testing.T) {
	requireClaude(t)
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "w")
	h.gitRepo(proj)
	api := startScriptedAPI(t, "FAKE-REPLY-write-done",
		toolCall{"Write", map[string]any{"file_path": filepath.Join(proj, ".vscode", "launch.json"), "content": "{}\n"}},
		toolCall{"Bash", map[string]any{"command": "mkdir -p .vscode/x; echo hi > .vscode/y; echo status=$?", "description": "write under a stand-in"}},
	)
	out := h.run(proj, api.Env("sk-ant-test-key"), "claudebox", "--permission-mode", "bypassPermissions", "-p", "write it")
	if !strings.Contains(out, "FAKE-REPLY-write-done") {
		t.Fatalf("claude -p printed %q", out)
	}
	results := api.ToolResults()
	// Measured with 2.1.330: "ERROR: EACCES: permission denied, open
	// '…/.vscode/launch.json.tmp.2.…'" (before: "File created successfully").
	if r := results["toolu_fake_0"]; !strings.HasPrefix(r, "ERROR") || !strings.Contains(r, "permission denied") {
		t.Errorf("Write under the missing .vscode: tool result %q, want permission denied", r)
	}
	if r := results["toolu_fake_1"]; !strings.Contains(r, "status=1") {
		t.Errorf("Bash writing under the missing .vscode: %q, want a failure", r)
	}
	if _, err := os.Lstat(filepath.Join(proj, ".vscode")); err == nil {
		t.Errorf("the host has a .vscode after the session")
	}
}
