package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/gc"
)

// TestReplayReview24ConversationCopyLink: after claudebox -c found none
// of the project's own conversations, the end gives the cp that brings
// the host's in, into the folder of the instance Claude Code keeps them
// in, which the sandbox writes: a session leaves that folder a link to a
// directory of the user's, and the user's cp wrote the conversations
// there, outside the instance. Host-side proof: the hint's command, run
// as printed, writes nothing through the link.
func TestReplayReview24ConversationCopyLink(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cplink")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-cplink-0123456789abcdef"
	h.Onboarded(key, proj)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-cplink")
	h.Run(proj, api.Env(key), "claude", "-p", "ON-THE-HOST")
	elsewhere := filepath.Join(h.Home, "elsewhere")
	h.Write(filepath.Join(elsewhere, "kept"), "mine\n")
	h.Inside(proj, nil, `ln -s `+elsewhere+` "$HOME/.claude/projects/`+gc.ClaudeProjectDir(proj)+`"`)
	var stderr strings.Builder
	cmd := h.Command(proj, api.Env(key), "claudebox", "-c", "-p", "go on")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claudebox -c: %v\n%s", err, stderr.String())
	}
	_, copyIn, found := strings.Cut(stderr.String(), "copy them in: ")
	if !found {
		t.Fatalf("claudebox -c did not say how to bring the host's conversation in:\n%s", stderr.String())
	}
	copied, _ := h.Command(proj, nil, "sh", "-c", strings.TrimSpace(copyIn)).CombinedOutput()
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 1 {
		t.Errorf("the hint's cp wrote through the link the session left in the instance (%d entries in %s):\n%s\n%s", len(entries), elsewhere, stderr.String(), copied)
	}
}
