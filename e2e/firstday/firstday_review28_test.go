package firstday

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDayReview28ClaudeMDAboveAndImports: a user keeps a CLAUDE.md
// for all their projects in ~/code (importing ~/code/shared.md), and
// the project's CLAUDE.md imports ~/notes.md, which they allowed on the
// host. claude -p on the host sends all three; claudebox -p sent none
// of them, and said nothing. The folders above the project are the
// user's: their memory is shown read-only, as ~/.claude/CLAUDE.md's
// imports are. The project's CLAUDE.md is the sandbox's to write: what
// it imports from outside is not shown, and the launch names it, with
// --ro-bind.
func TestFirstDayReview28ClaudeMDAboveAndImports(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, "code", "CLAUDE.md"), "ABOVE-THE-PROJECT-28\n@shared.md\n")
	h.Write(filepath.Join(h.Home, "code", "shared.md"), "SHARED-IMPORT-28\n")
	h.Write(filepath.Join(h.Home, "notes.md"), "HOME-NOTES-28\n")
	h.Write(filepath.Join(proj, "CLAUDE.md"), "@~/notes.md\n")
	const key = "sk-ant-test-key-claudemd28-0123456789ab"
	h.Write(filepath.Join(h.Home, ".claude.json"), fmt.Sprintf(`{
  "hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.330", "theme": "dark",
  "customApiKeyResponses": {"approved": [%q], "rejected": []},
  "projects": {%q: {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true, "hasClaudeMdExternalIncludesWarningShown": true}}
}
`, key[len(key)-20:], proj))
	api := harness.StartFakeAPI(t, "FAKE-REPLY-claudemd28")
	sent := func(from int) string { return strings.Join(api.Bodies()[from:], "\n") }
	h.Run(proj, api.Env(key), "claude", "-p", "hello")
	onHost := sent(0)
	for _, want := range []string{"ABOVE-THE-PROJECT-28", "SHARED-IMPORT-28", "HOME-NOTES-28"} {
		if !strings.Contains(onHost, want) {
			t.Fatalf("claude -p on the host did not send %s: the test's premise", want)
		}
	}
	from := len(api.Bodies())
	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-p", "hello")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -p: %v\n%s", err, stderr.String())
	}
	inside := sent(from)
	for _, want := range []string{"ABOVE-THE-PROJECT-28", "SHARED-IMPORT-28"} {
		if !strings.Contains(inside, want) {
			t.Errorf("claudebox -p did not send %s, which claude -p sends", want)
		}
	}
	if strings.Contains(inside, "HOME-NOTES-28") {
		t.Errorf("what the project's CLAUDE.md imports from the home was shown inside")
	}
	notes := filepath.Join(h.Home, "notes.md")
	for _, want := range []string{
		"claudebox: not shown inside: " + notes + " (an import of the project's CLAUDE.md)",
		"hint: bring one read-only with --ro-bind " + notes,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the launch does not say %q:\n%s", want, stderr.String())
		}
	}
}
