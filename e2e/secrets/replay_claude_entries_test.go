package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayClaudeUnknownEntriesHidden: ~/.claude was shown but for a
// list of Claude Code's state, so a file the list did not name was read
// inside: an old ~/.claude/.config.json (where Claude Code once kept the
// account and its key), a directory of the user's own notes, a plugin's
// data (where it keeps its token), a .env beside the status line's
// script. Only
// Claude Code's configuration, the Markdown CLAUDE.md imports and what
// the settings name (that path alone) are shown now; the rest is named at launch.
// Host-side proof: the agent reads neither, and finds the rest it needs.
func TestReplayClaudeUnknownEntriesHidden(t *testing.T) {
	h := harness.NewHost(t)
	claudeDir := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claudeDir, ".config.json"), `{"primaryApiKey":"sk-ant-api03-LEGACY-SECRET-KEY"}`+"\n")
	h.Write(filepath.Join(claudeDir, "notes", "tokens.txt"), "NOTES-SECRET-TOKEN\n")
	h.Write(filepath.Join(claudeDir, "plugins", "data", "slack-notify", "oauth.json"), `{"token":"xoxb-PLUGIN-DATA-SECRET"}`+"\n")
	h.Write(filepath.Join(claudeDir, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{}}`+"\n")
	h.Write(filepath.Join(claudeDir, "settings.json"), `{"statusLine":{"type":"command","command":"~/.claude/scripts/status.sh"}}`+"\n")
	h.Write(filepath.Join(claudeDir, "scripts", "status.sh"), "#!/bin/sh\necho status\n")
	h.Write(filepath.Join(claudeDir, "scripts", ".env"), "SLACK_TOKEN=xoxb-SCRIPTS-DIR-SECRET\n")
	h.Write(filepath.Join(claudeDir, "CLAUDE.md"), "@RULES.md\n")
	h.Write(filepath.Join(claudeDir, "RULES.md"), "rules\n")
	h.Write(filepath.Join(claudeDir, "commands", "c.md"), "a command\n")
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)

	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		cat ~/.claude/.config.json ~/.claude/notes/tokens.txt 2>/dev/null
		grep -rh SECRET ~/.claude 2>/dev/null
		test -f ~/.claude/scripts/status.sh && echo ok status-visible
		test -f ~/.claude/RULES.md && echo ok rules-visible
		test -f ~/.claude/commands/c.md && echo ok commands-visible
		test -f ~/.claude/plugins/installed_plugins.json && echo ok plugins-visible
	`).CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("claudebox: %v\n%s", err, out)
	}
	if strings.Contains(out, "LEGACY-SECRET") || strings.Contains(out, "NOTES-SECRET") || strings.Contains(out, "PLUGIN-DATA-SECRET") || strings.Contains(out, "SCRIPTS-DIR-SECRET") {
		t.Errorf("an entry of ~/.claude that is not configuration was read inside:\n%s", out)
	}
	for _, want := range []string{"ok status-visible", "ok rules-visible", "ok commands-visible", "ok plugins-visible"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "not shown inside, as neither Claude Code's configuration nor named by your settings: ~/.claude/.config.json, ~/.claude/notes") {
		t.Errorf("the launch does not name what it hides:\n%s", out)
	}
}
