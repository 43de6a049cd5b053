package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview25KeptVerdictRejudged: a launch keeps what it judged
// of the files it read for a credential (~/.claudebox/verdicts), so that
// a plugin's 20 MiB of JavaScript is not read again at every launch. A
// skill's script that gains a token after a launch judged it, rewritten
// with its size and modification time kept (touch -d), is the same file
// but for its status-change time. The attack, from inside: read it at
// the next launch, and see or write the kept verdicts. Proof: the token
// is not readable at the next launch; the record was kept, and no
// sandbox sees it.
func TestReplayReview25KeptVerdictRejudged(t *testing.T) {
	h := harness.NewHost(t)
	script := filepath.Join(h.Home, ".claude", "skills", "deploy", "run.js")
	h.Write(filepath.Join(filepath.Dir(script), "SKILL.md"), "---\nname: deploy\ndescription: deploy\n---\nRun run.js.\n")
	plain := `const msg = "REVIEW25-PLAIN-0123456789abcdefghijklmno";` + "\n"
	token := `const msg = "ghp_Review25Verdict0123456789abcdefghijk";` + "\n"
	if len(plain) != len(token) {
		t.Fatalf("the two versions differ in size: %d, %d", len(plain), len(token))
	}
	h.Write(script, plain)
	written := time.Now()
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	// The first launch makes ~/.claudebox, where the next keep their
	// verdicts; a verdict is kept only for a file settled for two seconds.
	h.Inside(proj, nil, "true")
	time.Sleep(time.Until(written.Add(2100 * time.Millisecond)))
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/deploy/run.js; test -e ~/.claudebox/verdicts && echo VERDICTS-SEEN; mkdir -p ~/.claudebox && echo forged >~/.claudebox/verdicts; true")
	t.Log(out)
	if !strings.Contains(out, "REVIEW25-PLAIN") {
		t.Fatalf("inside, want the skill's script without a credential:\n%s", out)
	}
	if strings.Contains(out, "VERDICTS-SEEN") {
		t.Errorf("the sandbox sees the kept verdicts:\n%s", out)
	}
	record := filepath.Join(h.Home, ".claudebox", "verdicts")
	kept, err := os.ReadFile(record)
	if err != nil || !strings.HasPrefix(string(kept), "claudebox verdicts") || !strings.Contains(string(kept), "run.js") {
		t.Fatalf("the launch kept no verdict of the skill's script (or the sandbox wrote the record): %v\n%q", err, kept)
	}
	fi, err := os.Stat(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(token), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(script, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	out = h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/deploy/run.js; true")
	t.Log(out)
	if strings.Contains(out, "Review25Verdict") {
		t.Errorf("a skill's script that gained a token after a kept verdict is readable inside:\n%s", out)
	}
}
