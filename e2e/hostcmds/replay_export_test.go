package hostcmds

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// The export's replay suite: what a session can leave in its instance
// (the sandbox's ~/.claude/projects) so that the host's claudebox --export,
// --export-all or --list-sessions reads a file it should not, hangs, or
// prints something that acts on the terminal or on a Markdown viewer.

// TestReplayExportPlantedTranscripts: the sandbox plants, among Claude
// Code's transcripts, one that is a symlink to the host's SSH key (which
// the sandbox cannot read, and the host can), a path-named directory that
// is a symlink to a host directory holding a .jsonl, a FIFO, a transcript
// whose one line is 1 GiB (sparse), and one whose prompt and reply carry
// terminal escapes, <script>, a javascript: link and an API key.
// Host-side proof: each command ends within its deadline; nothing it
// prints or writes holds the key, the host directory's file, a raw escape,
// a <script>, a javascript: link or the API key, and --export-all writes
// the one real session only.
func TestReplayExportPlantedTranscripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	key := filepath.Join(h.Home, ".ssh", "id_ed25519")
	h.Write(key, "HOST-SSH-KEY-7c1e\n")
	hostDir := filepath.Join(h.Home, "private")
	h.Write(filepath.Join(hostDir, "00000000-0000-4000-8000-00000000000a.jsonl"),
		`{"type":"user","uuid":"p","parentUuid":null,"message":{"role":"user","content":"HOST-PRIVATE-9d2f"}}`+"\n")
	apiKey := "sk-ant-api03-" + strings.Repeat("Q", 40)
	hostile := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"hi \u001b]0;pwned\u0007\u001b[2J <script>alert(1)</script> ` + apiKey + `"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2030-01-01T00:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"[click](javascript:alert(2)) \u009b31m <img src=x onerror=alert(3)>"},{"type":"tool_use","id":"t","name":"Bash\u001b[31m","input":{"command":"echo \u001b]52;c;cHduZWQ=\u0007"}}]}}` + "\n"
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		ln -s `+key+` $d/00000000-0000-4000-8000-000000000001.jsonl
		ln -s `+hostDir+` ~/.claude/projects/-linked
		mkfifo $d/00000000-0000-4000-8000-000000000002.jsonl
		truncate -s 1G $d/00000000-0000-4000-8000-000000000003.jsonl
		printf '%s' '`+strings.ReplaceAll(hostile, "'", `'\''`)+`' > $d/00000000-0000-4000-8000-000000000004.jsonl
	`)
	out := filepath.Join(h.Base, "out")
	h.Write(filepath.Join(out, ".keep"), "")
	h.Chown()
	var printed, markdown bytes.Buffer
	for _, args := range [][]string{
		{"--list-sessions"},
		{"--list-sessions", "--json"},
		{"--export"},
		{"--export", "00000000-0000-4000-8000-000000000001"},
		{"--export", "00000000-0000-4000-8000-000000000002"},
		{"--export", "00000000-0000-4000-8000-000000000003"},
		{"--export", "00000000-0000-4000-8000-00000000000a"},
		{"--export-all", out},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		c := h.Command(proj, nil, "claudebox", args...)
		c = exec.CommandContext(ctx, c.Path, c.Args[1:]...)
		c.Dir, c.Env = proj, h.Command(proj, nil, "true").Env
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		hung := ctx.Err() == context.DeadlineExceeded
		cancel()
		if hung {
			t.Fatalf("claudebox %q did not finish: a planted file hung it", args)
		}
		if args[0] == "--export" && len(args) == 1 && err != nil {
			t.Errorf("claudebox --export: %v\n%s", err, stderr.String())
		}
		printed.Write(stdout.Bytes())
		printed.Write(stderr.Bytes())
		if args[0] == "--export" {
			markdown.Write(stdout.Bytes())
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		printed.Write(b)
		markdown.Write(b)
	}
	// The sparse one has a hole no agent writes: listed unreadable.
	if len(files) != 1 {
		t.Errorf("--export-all wrote %v, want the one real session's", files)
	}
	all := printed.String()
	for _, bad := range []string{"HOST-SSH-KEY-7c1e", "HOST-PRIVATE-9d2f", "\x1b", "\u009b", "\a", apiKey} {
		if strings.Contains(all, bad) {
			t.Errorf("the host's claudebox printed or wrote %q", bad)
		}
	}
	for _, bad := range []string{"<script", "<img", "](javascript"} {
		if strings.Contains(markdown.String(), bad) {
			t.Errorf("the Markdown holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script>", `\x1b]0;pwned\x07`, "[REDACTED]"} {
		if !strings.Contains(all, want) {
			t.Errorf("the export lacks %q, the planted text shown inert", want)
		}
	}
	if t.Failed() {
		t.Logf("printed:\n%s", all)
	}
}
