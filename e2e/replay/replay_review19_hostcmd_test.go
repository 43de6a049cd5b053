package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview19ManyTranscripts: --list-sessions, --export and
// --export-all read every transcript of the instance, whole, to list them
// or to find the latest; the sandbox writes the instance's history and
// can leave transcripts by the hundred thousand (200,000 of one line held
// --list-sessions 61 s at 178 MiB and printed every one; --export of one
// of them 66 s at 229 MiB). The attack,
// from inside: leave 1,500 transcripts beside an older real session.
// Proof: --list-sessions reads and lists the 1,000 written last, saying
// how many it left; the older session is still exported by its id.
func TestReplayReview19ManyTranscripts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "demo")
	h.GitRepo(proj)
	turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"PROMPT"}}`
	h.Inside(proj, nil, `
		set -e
		d=~/.claude/projects/-planted
		mkdir -p $d
		echo '`+strings.ReplaceAll(turn, "PROMPT", "the real plan")+`' > $d/aaaaaaaa-0000-4000-8000-000000000001.jsonl
		touch -d 2026-01-01 $d/aaaaaaaa-0000-4000-8000-000000000001.jsonl
		for i in $(seq 10000 11499); do echo '`+turn+`' > $d/$i-0000-4000-8000-000000000001.jsonl; done
	`)
	out, err := h.Bounded(proj, "--list-sessions")
	if err != nil {
		t.Fatalf("--list-sessions: %v\n%s", err, out)
	}
	if rows := strings.Count(out, "-0000-4000-8000-"); rows > 1000 {
		t.Errorf("--list-sessions listed %d sessions, want at most the 1,000 written last", rows)
	}
	if !strings.Contains(out, "501 sessions not listed") {
		t.Errorf("--list-sessions does not say how many sessions it left:\n%s", out[max(0, len(out)-2000):])
	}
	if out := h.Run(proj, nil, "claudebox", "--export", "aaaaaaaa"); !strings.Contains(out, "the real plan") {
		t.Errorf("--export of the older session by its id:\n%s", out)
	}
}
