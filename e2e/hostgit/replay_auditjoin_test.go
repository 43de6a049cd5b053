package hostgit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayAuditGuardOfLaterSession: the exit audit skips what the last
// session's guards stood on, but that guard stood only from that
// session's start. Session A plants Claude Code hooks in pkg/.claude (a
// level below the project: a .claude that exists there is guarded); B
// starts while A runs, finds pkg/.claude and guards it, and leaves last.
// Host-side proof: the hooks are no longer where the host's claude reads
// them.
func TestReplayAuditGuardOfLaterSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "pkg", "main.go"), "package pkg\n")
	marker := filepath.Join(h.Base, "MARKER")
	settings := filepath.Join(proj, "pkg", ".claude", "settings.json")
	_, aOut, aExited := harness.StartSession(t, h, proj, `
		mkdir -p pkg/.claude
		echo '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}' > pkg/.claude/settings.json
		touch started
		while ! test -e done; do sleep 0.05; done
	`)
	os.Remove(filepath.Join(proj, "started"))
	_, bOut, bExited := harness.StartSession(t, h, proj, `touch started; while ! test -e done2; do sleep 0.05; done`)
	if len(aExited) > 0 || len(bExited) > 0 {
		t.Fatalf("a session ended early:\n%s\n%s", aOut, bOut)
	}
	harness.TouchDone(t, proj)
	if err := <-aExited; err != nil {
		t.Fatalf("session A: %v\n%s", err, aOut)
	}
	if err := os.WriteFile(filepath.Join(proj, "done2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-bExited; err != nil {
		t.Fatalf("session B: %v\n%s", err, bOut)
	}
	if b, err := os.ReadFile(settings); err == nil && strings.Contains(string(b), marker) {
		t.Errorf("the hooks passed the audit:\n%s", bOut)
	}
}
