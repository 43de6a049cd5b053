package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
)

// TestExportRealTranscript runs the real Claude Code in the real sandbox
// against the fake Messages API, with scripted tool calls (Bash, Write,
// Edit, a failing Read, TodoWrite, Glob, Grep) and a second turn, then
// exports the session from the host with claudebox --export. The export
// holds each call's key input and a diff for the edit, shows the project
// and home relative, and none of what the prompt planted (an escape
// sequence, a <script>, an API key) comes out raw. With --export-dir, the
// session is in the inbox when it ends.
//
// With -u it also stores the transcript, machine paths scrubbed, as the
// transcript package's fixture (testdata/claude-2.1.330.jsonl), which its
// golden files are rendered from.
func TestExportRealTranscript(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "notes.txt"), "first line\nold line\nlast line\n")
	api := harness.StartScriptedAPI(t, "Done. The *notes* are updated:\n\n```sh\ncat notes.txt\n```\n\nSee [the docs](https://example.com/docs).",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "ls && wc -l notes.txt", "description": "look around"}},
		harness.ToolCall{Name: "Write", Input: map[string]any{"file_path": filepath.Join(proj, "hello.py"), "content": "print('hello')\nprint('world')\n"}},
		harness.ToolCall{Name: "Edit", Input: map[string]any{"file_path": filepath.Join(proj, "notes.txt"), "old_string": "old line", "new_string": "new line\nanother line"}},
		harness.ToolCall{Name: "Read", Input: map[string]any{"file_path": filepath.Join(proj, "missing.txt")}},
		harness.ToolCall{Name: "TodoWrite", Input: map[string]any{"todos": []map[string]any{
			{"content": "Read the notes", "status": "completed", "activeForm": "Reading the notes"},
			{"content": "Update the notes", "status": "in_progress", "activeForm": "Updating the notes"},
			{"content": "Commit", "status": "pending", "activeForm": "Committing"},
		}}},
		harness.ToolCall{Name: "Glob", Input: map[string]any{"pattern": "*.txt"}},
		harness.ToolCall{Name: "Grep", Input: map[string]any{"pattern": "line", "path": proj, "output_mode": "content"}},
	)
	env := api.Env("sk-ant-test-key")
	tools := "Bash,Write,Edit,Read,TodoWrite,Glob,Grep"
	h.Run(proj, env, "claudebox", "--allowedTools", tools, "-p", "update the notes")
	planted := "second turn: <script>alert(1)</script> \x1b]0;pwned\x07 key sk-ant-api03-" + strings.Repeat("A", 40)
	// The inbox gets the session when it ends, its second turn included.
	inbox := filepath.Join(h.Base, "inbox")
	h.Write(filepath.Join(inbox, ".keep"), "")
	h.Chown()
	h.Run(proj, env, "claudebox", "--export-dir", inbox, "--continue", "-p", planted)
	exported, _ := filepath.Glob(filepath.Join(inbox, "demo", "*-update-the-notes-*.md"))
	if len(exported) != 1 {
		all, _ := filepath.Glob(filepath.Join(inbox, "*", "*"))
		t.Fatalf("the inbox holds %v (all: %v), want the session's export", exported, all)
	}
	if b, _ := os.ReadFile(exported[0]); !strings.Contains(string(b), "second turn: &lt;script>") {
		t.Errorf("the inbox's export lacks the turn that just ended:\n%s", b)
	}

	md := h.Run(proj, nil, "claudebox", "--export")
	for _, want := range []string{
		"## User\n", "## Assistant\n", "> update the notes",
		"**Bash** `ls && wc -l notes.txt` — look around",
		"**Write** `./hello.py` (2 lines)",
		"-old line\n+new line\n+another line\n",
		"**Error** from `Read ./missing.txt`",
		"- [x] Read the notes\n- [ ] Update the notes *(in progress)*\n- [ ] Commit",
		"**Glob** `*.txt`", "**Grep** `line` in `~/code/demo`",
		"<details><summary>Result: Bash ls &amp;&amp; wc -l notes.txt</summary>",
		"&lt;script>alert(1)&lt;/script> \\x1b]0;pwned\\x07 key [REDACTED]",
		"See [the docs](https://example.com/docs).",
		`project: "~/code/demo"`, `claude-code: ["2.1.330"]`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the export lacks %q", want)
		}
	}
	for _, bad := range []string{"\x1b", "<script>", "sk-ant-api03", h.Base} {
		if strings.Contains(md, bad) {
			t.Errorf("the export holds %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("export:\n%s", md)
	}
	if !*update {
		return
	}
	transcripts, _ := filepath.Glob(filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "*", "*.jsonl"))
	if len(transcripts) != 1 {
		t.Fatalf("transcripts: %v, want one", transcripts)
	}
	b, err := os.ReadFile(transcripts[0])
	if err != nil {
		t.Fatal(err)
	}
	// Machine paths out: /tmp/claudebox-e2e-…/home/alice is /home/alice.
	scrubbed := strings.ReplaceAll(string(b), h.Base, "")
	scrubbed = strings.ReplaceAll(scrubbed, strings.ReplaceAll(h.Base, "/", "-"), "")
	if err := os.WriteFile(filepath.Join("..", "..", "transcript", "testdata", "claude-2.1.330.jsonl"), []byte(scrubbed), 0o644); err != nil {
		t.Fatal(err)
	}
}
